import CVipsShim

/// Contact sheets (`medley_sheet.c`): cells of one size, each a thumbnail on the background with
/// its label, joined in rows.
extension VipsImage {
    /// A `width` × `height` cell of `background` (0…255 per RGB channel) with `thumbnail` (8-bit
    /// sRGB, no alpha; nil: an empty cell) at (x, y) and `label` (8-bit sRGB + alpha) drawn over
    /// it at (labelX, labelY).
    public static func sheetCell(thumbnail: VipsImage?, label: VipsImage?, width: Int, height: Int,
                                 x: Int, y: Int, labelX: Int, labelY: Int, background: [Double]) throws -> VipsImage {
        try Vips.start()
        let colour = Array((background + [0, 0, 0]).prefix(3))
        return try wrap(medley_sheet_cell(thumbnail?.handle, label?.handle, try int32(width), try int32(height),
                                          try int32(x), try int32(y), try int32(labelX), try int32(labelY), colour),
                        "cannot compose a contact sheet cell")
    }

    /// `cells` (all one size) in rows of `across`, a short last row filled with `background`.
    public static func sheet(cells: [VipsImage], across: Int, background: [Double]) throws -> VipsImage {
        try Vips.start()
        guard !cells.isEmpty else {
            throw MediaError(.libvips, "join", "a contact sheet needs at least one cell", cause: .unsupported)
        }
        let colour = Array((background + [0, 0, 0]).prefix(3))
        var handles: [OpaquePointer?] = cells.map(\.handle)
        let count = try int32(cells.count), columns = try int32(across)
        let joined = handles.withUnsafeMutableBufferPointer { medley_sheet_join($0.baseAddress, count, columns, colour) }
        return try withExtendedLifetime(cells) { try wrap(joined, "cannot join the contact sheet") }
    }
}
