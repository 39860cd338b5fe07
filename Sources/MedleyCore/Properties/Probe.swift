import Foundation
import MedleyFilters
import MedleyMedia

/// `medley probe`: the properties Medley reads from one file, without a pipeline.
public enum Probe {
    public static func properties(ofFileAt path: String) throws -> [(name: String, value: TemplateValue)] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ItemFailure(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw ItemFailure("not a regular file") }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let file = IngestedFile(
            path: absolute, root: (absolute as NSString).deletingLastPathComponent,
            relativePath: (absolute as NSString).lastPathComponent, size: Int64(info.st_size),
            modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec)))
        guard let sniffed = try PipelineRunner.identify(file) else {
            throw ItemFailure("not a recognised image, audio or movie file")
        }
        guard sniffed.kind == .image else {
            let (stem, ext) = ItemProperties.split(fileName: file.relativePath)
            return [("mediaType", .text(sniffed.kind.rawValue)), ("format", .text(sniffed.format)),
                    ("path", .text(absolute)), ("stem", .text(stem)), ("ext", .text(ext)),
                    ("size", .integer(Int(file.size)))]
        }
        try Vips.start()
        let image: VipsImage
        do {
            image = try VipsImage.open(absolute, access: .sequential)
        } catch {
            throw ItemFailure("cannot decode: \(error)")
        }
        return ImageProperties(file: file, image: image, format: sniffed.format).values
    }
}

extension TemplateValue {
    /// The value as a person reads it.
    public var text: String {
        switch self {
        case .text(let s), .path(let s): return s
        case .integer(let n): return String(n)
        case .number(let n): return String(n)
        }
    }

    /// The value in JSON.
    public var json: JSONValue {
        switch self {
        case .text(let s), .path(let s): return .string(s)
        case .integer(let n): return .number(Double(n))
        case .number(let n): return .number(n)
        }
    }
}
