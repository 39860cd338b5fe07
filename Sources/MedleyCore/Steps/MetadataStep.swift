import Foundation
import MedleyMedia

/// An image output's metadata after libvips saved it: `export.strip` lists and `keep`, the tag
/// stage's image fields and date shift (`MetadataWrite`, through the exiv2 adapter, on the
/// temporary), and the `.xmp` sidecar beside the output (written atomically through the export
/// root, as every output is).
enum MetadataStep {
    /// Writes into `temporary`; returns the item's warnings and the sidecar's text when asked.
    static func write(_ temporary: String, source: String, stage: ImageStage, format: ImageFormat,
                      property: (String) -> TemplateValue?) throws -> (warnings: [String], sidecar: String?) {
        let edit = stage.metadata
        guard !edit.isEmpty else { return ([], nil) }
        // GIF and a bare JPEG XL codestream hold no metadata exiv2 can write: said, not failed.
        guard format != .gif && format != .jxl else {
            return (["export.strip/tag: .\(format.fileExtension) output holds no EXIF, IPTC or XMP; metadata not written"], nil)
        }
        let size: (width: Int, height: Int)
        if let header = try? VipsImage.open(temporary, access: .sequential) { size = (header.width, header.height) } else { size = (0, 0) }
        return try edit.apply(to: temporary, source: source, width: size.width, height: size.height,
                              orientedUpright: stage.export.autoOrient, property: property)
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
