import Foundation
import MedleyMedia
import MedleyTags

/// `tag.artwork`: cover art embedded from a file, or an item's own cover exported as a file of
/// its own; and what in a job depends on an item's tags being readable.
enum CoverArt {
    /// What in `job` uses an item's tags (its `tag` stage, a tag property in the export name), so
    /// that tags which cannot be read fail the item rather than give a wrong result; nil when nothing does.
    static func tagUse(_ job: Job) -> String? {
        if job.tag != nil { return "tag stage" }
        if let name = job.export?.name, let used = name.properties.first(where: AudioStage.tagProperties.contains) {
            return "export name ({\(used)})"
        }
        return nil
    }

    /// A JPEG or PNG file as cover art (the tag stage checked its kind at validation).
    static func artwork(fromFileAt path: String) throws -> Artwork {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ItemFailure(.stage, "tag.artwork.embed: cannot read \(path)")
        }
        let png = data.starts(with: [0x89, 0x50, 0x4E, 0x47])
        return Artwork(data: [UInt8](data), mimeType: png ? "image/png" : "image/jpeg")
    }

    /// `tag.artwork.export`: the item's embedded cover as its own file, named by the template
    /// (`{ext}` is the cover's own: jpg or png), under the export root, written atomically.
    /// Tracks of one album share a cover: the first item writes it, the others find it claimed.
    static func export(_ artwork: Artwork, template: NameTemplate, for file: IngestedFile, exporter: Exporter,
                       property: (String) -> TemplateValue?) throws {
        let name = try OutputName(template.render { name in
            switch name {
            case "ext": return .text(artwork.fileExtension)
            case "job": return .text(exporter.job)
            default: return property(name)
            }
        }, root: exporter.export.to)
        guard exporter.claims.claimNow(name.path, for: file.path) else { return }
        _ = try exporter.output.write(to: name, fileExtension: artwork.fileExtension) { temporary in
            // Into the temporary file itself (FileManager.createFile would write a file of its own
            // beside it and rename that over it).
            let descriptor: Int32
            switch FileSystem.openForWriting(temporary, creating: false) {
            case .success(let opened): descriptor = opened
            case .failure(let error): throw Self.writeFailure(errno: error.code, "open")
            }
            let failed = Descriptor.write(descriptor, artwork.data)
            Descriptor.close(descriptor)
            if let failed { throw Self.writeFailure(errno: failed, "write") }
        }
    }

    private static func writeFailure(errno code: Int32, _ operation: String) -> ItemFailure {
        let cause = MediaError.system(operation, errno: code)
        return ItemFailure(.output, "cannot write the cover art: \(cause)", cause: cause)
    }
}
