import Foundation
import MedleyMedia
import MedleySystem

/// An image output's metadata after libvips saved it: `export.strip` lists and `keep`, the tag
/// stage's image fields and date shift (`MetadataWrite`, through the exiv2 adapter, on the
/// temporary), and the `.xmp` sidecar beside the output (written atomically through the export
/// root, as every output is).
enum MetadataStep {
    /// Writes into `temporary`; returns the item's warnings and the sidecar's text when asked.
    /// `carry`: the input's families the encoder left out, copied from `source` first
    /// (`carried(…)`); `upright`: the output's pixels stand as they should be seen (orientation 1).
    static func write(_ temporary: String, source: String, stage: ImageStage, format: ImageFormat,
                      carry: Set<MetadataFamily> = [], upright: Bool,
                      property: (String) -> TemplateValue?) throws -> (warnings: [String], sidecar: String?) {
        var edit = stage.metadata
        edit.carry = carry
        guard !edit.isEmpty else { return ([], nil) }
        // GIF holds no metadata, and exiv2 0.27 writes no HEIF/AVIF:
        // said for the item, not failed (libvips' saver carried what it carries).
        guard !format.exiv2Writes.isEmpty else {
            guard !stage.metadata.isEmpty else { return ([], nil) }
            return (["export.strip/tag: exiv2 cannot write the metadata of a .\(format.fileExtension) output; "
                     + "the strip list, keep and tag fields are not applied to it (export as jpeg, png, webp, tiff or jxl)"], nil)
        }
        // The output's size, for the EXIF pixel dimensions of fields copied from the input.
        var size = (width: 0, height: 0)
        if edit.strip.savesStripped || !carry.isEmpty, let header = try? VipsImage.open(temporary, access: .sequential) {
            size = (header.width, header.height)
        }
        return try edit.apply(to: temporary, format: format, source: source, width: size.width, height: size.height,
                              orientedUpright: upright, property: property)
    }

    /// The input's families to copy into an output after its encoder wrote it: those the input
    /// holds (`inputHolds`) that the encoder left out (`encoderWrote`) and exiv2 writes into this
    /// format — libvips writes no EXIF or IPTC into a TIFF and no IPTC into a PNG, and a RAW's
    /// picture comes to libvips with none. None with `strip: true`, nor when the strip list names
    /// the ICC profile (libvips then wrote nothing, and everything not stripped is copied back).
    static func carried(_ stage: ImageStage, format: ImageFormat, inputHolds: [ImageFormat.Metadata],
                        encoderWrote: Set<ImageFormat.Metadata>) -> Set<MetadataFamily> {
        guard !stage.export.strip, !stage.metadata.strip.savesStripped else { return [] }
        return format.exiv2Writes.filter { inputHolds.contains($0.kind) && !encoderWrote.contains($0.kind) }
    }

    /// Whether the job only edits metadata, so the input's bytes are copied and edited rather than
    /// decoded and encoded again (exiftool's way: the pixels untouched, nothing lost to a second
    /// JPEG encode): a metadata edit is asked (`strip` list or `keep`, `tag` fields, `shiftDates`,
    /// `sidecar`), there are no filters, graph, watermark, auto-adjustment or analyses, the output
    /// is the input's format with no encoder, profile or background setting (not JPEG XL, whose
    /// container exiv2 0.27 cannot read), libvips strips nothing, and the picture needs no turning upright.
    static func copiesWithoutReencoding(_ stage: ImageStage, header: VipsImage, format: ImageFormat) -> Bool {
        let export = stage.export
        guard !stage.metadata.isEmpty, !stage.metadata.strip.savesStripped, !export.strip,
              stage.renderer.plan == nil, stage.renderer.watermark == nil, stage.graph == nil,
              stage.autoAdjust == nil, stage.analyses.isEmpty,
              export.quality == nil, export.profile == .keep, export.background == nil, export.encoder == EncoderOptions(),
              !format.exiv2Writes.isEmpty, format != .jxl, header.pages == 1, header.orientation == 1 || !export.autoOrient else { return false }
        let compression = header.loader.hasPrefix("heif") ? header.field("heif-compression") : nil
        return ImageFormat(loader: header.loader, heifCompression: compression) == format
    }

    /// A metadata-only job's output: the input's bytes (read once, through its open file), edited
    /// in memory through exiv2 and written into the temporary the export made, once. Not flushed
    /// to disk: as every output, it is complete before its rename puts it in place, and a run
    /// killed before then leaves only a temporary file. Returns what `write` returns.
    static func edit(copyOf source: String, into temporary: String, header: VipsImage, format: ImageFormat, stage: ImageStage,
                     property: (String) -> TemplateValue?) throws -> (warnings: [String], sidecar: String?) {
        let bytes = try read(source)
        let edited = try stage.metadata.applied(to: bytes, format: format, output: temporary, source: source, width: header.width, height: header.height,
                                                orientedUpright: stage.export.autoOrient, property: property)
        let descriptor: Int32
        switch FileSystem.openForWriting(temporary, creating: false) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw ItemFailure(.output, "cannot write the output: \(error)", cause: error)
        }
        defer { FileSystem.close(descriptor) }
        if let code = Descriptor.write(descriptor, edited.image) {
            throw ItemFailure(.output, "cannot write the output: \(FileSystem.errorText(code))",
                              cause: MediaError.system("write", errno: code, path: temporary))
        }
        return (edited.warnings, edited.sidecar)
    }

    /// Every byte of the input, through its open file (`/proc/self/fd/N`).
    private static func read(_ source: String) throws -> [UInt8] {
        let failure = { (operation: String, error: FileSystem.Errno) in
            ItemFailure(.input, "cannot read the input to copy it: \(error)", cause: MediaError.system(operation, errno: error.code, path: source))
        }
        let descriptor: Int32
        switch FileSystem.openForReading(source) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw failure("open", error)
        }
        defer { FileSystem.close(descriptor) }
        guard case .success(let status) = FileSystem.status(ofDescriptor: descriptor), status.kind == .file,
              let count = Int(exactly: status.size) else {
            throw ItemFailure(.input, "cannot read the input to copy it: not a regular file")
        }
        switch FileSystem.read(descriptor, count: count, at: 0) {
        case .success(let bytes): return bytes
        case .failure(let error): throw failure("read", error)
        }
    }

    /// `photo.jpg.xmp` beside the output `photo.jpg` (darktable's naming, which exiftool and
    /// Lightroom read), atomically; a sidecar that cannot be written is the item's warning.
    static func writeSidecar(_ packet: String, beside name: OutputName, exporter: Exporter) -> [String] {
        guard let root = exporter.output.root else { return [] }
        do {
            try root.writeFile(name.relative + ".xmp", Array(packet.utf8))
            return []
        } catch {
            return ["tag.sidecar: \(name.path).xmp not written: \(error)"]
        }
    }
}
