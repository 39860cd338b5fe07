import CLibRaw
import CVipsShim
import Foundation
import MedleySystem

/// A camera's RAW file read through LibRaw (Debian's libraw_r, thread-safe: every call here makes its own
/// `libraw_data_t` and closes it before returning, so items on different threads never share one).
///
/// Three things are asked of a RAW: what it is (`identify`: the header only, no pixels), its developed picture
/// (`develop`: demosaiced with the camera's white balance and colour matrix, sRGB, 16 bits, turned upright), and
/// the picture the camera embedded (`preview`: the JPEG's bytes as they are in the file). Every failure is a
/// `MediaError` of LibRaw whose words name RAW and, once the header was read, the camera.
public enum RawFile {
    /// What a RAW's header says: the camera, the exposure, the sensor and the picture's sizes.
    public struct Identity: Sendable, Equatable {
        /// "Canon", "NIKON CORPORATION" as the camera writes it (LibRaw's `make`, as `raw-identify` prints it).
        public var make: String
        /// "EOS 30D": the model without the make (LibRaw's `model`).
        public var model: String
        /// The lens as the file names it (EXIF LensModel, else the maker note's); empty when unknown.
        public var lens: String
        /// ISO speed, exposure time in seconds, f-number, focal length in mm (0 when the file has none).
        public var iso: Double
        public var shutter: Double
        public var aperture: Double
        public var focalLength: Double
        /// When the picture was taken (the camera's clock, read as local time as LibRaw reads it), or nil.
        public var taken: Date?
        /// The sensor's whole raw frame, masked borders included (`raw_width` × `raw_height`).
        public var sensorWidth: Int
        public var sensorHeight: Int
        /// The developed picture's size as stored, before it is turned upright (`dcraw_emu`'s output before its
        /// flip: `width` × `height` after LibRaw's pixel-aspect and Fuji adjustments).
        public var width: Int
        public var height: Int
        /// The EXIF orientation (1, 3, 6 or 8) of LibRaw's `flip`: how the picture must be turned to stand upright.
        public var orientation: Int
        /// The embedded preview: its size and length in bytes as the header lists them; nil when it lists none.
        public var preview: (width: Int, height: Int, bytes: Int)? {
            get { previewLength > 0 ? (previewWidth, previewHeight, previewLength) : nil }
            set { (previewWidth, previewHeight, previewLength) = newValue ?? (0, 0, 0) }
        }
        var previewWidth = 0, previewHeight = 0, previewLength = 0

        /// "Canon EOS 30D": the camera as a person names it (the make once, even when the model repeats it).
        public var camera: String {
            let brand = make.split(separator: " ").first.map { $0.lowercased() } ?? ""
            if model.isEmpty { return make }
            return make.isEmpty || model.lowercased().hasPrefix(brand) ? model : make + " " + model
        }

        /// The picture's size once upright.
        public var uprightWidth: Int { orientation >= 5 ? height : width }
        public var uprightHeight: Int { orientation >= 5 ? width : height }

        /// About how many bytes developing takes at its peak: the raw samples (2 bytes a sensor pixel), LibRaw's
        /// four-channel working image (8 bytes a picture pixel) and its 16-bit RGB output (6), which libvips reads
        /// where it is (the first two are freed before the picture is encoded).
        public var developMemory: Int {
            let sensor = Double(sensorWidth) * Double(sensorHeight), picture = Double(width) * Double(height)
            let bytes = sensor * 2 + picture * (8 + 6)
            return bytes < Double(Int.max / 2) ? Int(bytes) : Int.max / 2
        }
    }

    /// Reads the header of the RAW at `path` (no pixels). Throws when LibRaw cannot read it as a RAW.
    public static func identify(_ path: String) throws -> Identity {
        try withOpened(path, adjustSizes: true) { raw, identity in identity }
    }

    /// Whether LibRaw reads the file at `path` as a camera RAW (its header only). A plain TIFF is not one.
    public static func recognises(_ path: String) -> Bool {
        (try? identify(path)) != nil
    }

    /// The developed picture: demosaiced with the camera's white balance and colour matrix into sRGB (its primaries
    /// and curve), 16 bits a sample, upright (LibRaw applies the file's orientation). `check` runs on the header
    /// before any pixel is unpacked (the caller's pixel limit); what it throws is thrown as it is.
    /// Held in memory: `Identity.developMemory` says about how much.
    public static func develop(_ path: String, check: (Identity) throws -> Void = { _ in }) throws -> VipsImage {
        try withOpened(path) { raw, identity in
            try check(identity)
            medley_raw_set_develop(raw)
            try call(libraw_unpack(raw), "unpack", identity, path)
            try call(libraw_dcraw_process(raw), "develop", identity, path)
            var status: Int32 = 0
            guard let made = libraw_dcraw_make_mem_image(raw, &status) else {
                throw failure(status == 0 ? Int32(LIBRAW_UNSUFFICIENT_MEMORY.rawValue) : status, "develop", identity, path)
            }
            // LibRaw's picture becomes the image's pixels as they are (no copy: one full-size picture fewer held
            // at once); the image frees it when it goes. Until it is handed over, it is freed here.
            var handedOver = false
            defer { if !handedOver { libraw_dcraw_clear_mem(made) } }
            let image = made.pointee
            let width = Int(image.width), height = Int(image.height), bands = Int(image.colors)
            guard image.type == LIBRAW_IMAGE_BITMAP, image.bits == 16, bands == 3 || bands == 1, width > 0, height > 0,
                  Int(image.data_size) == width * height * bands * 2 else {
                throw MediaError(.libraw, "develop", "\(words(identity)): LibRaw made a \(image.bits)-bit picture of \(bands) colours "
                                 + "(\(width) × \(height), \(image.data_size) bytes), not 16-bit RGB", cause: .unsupported, path: path)
            }
            guard let offset = MemoryLayout<libraw_processed_image_t>.offset(of: \.data) else {
                throw MediaError(.libraw, "develop", "\(words(identity)): LibRaw's picture has no samples", cause: .unsupported, path: path)
            }
            let samples = UnsafeRawPointer(made).advanced(by: offset).assumingMemoryBound(to: UInt16.self)
            let developed = try VipsImage.wrapping(samples16: samples, width: width, height: height, bands: bands,
                                                   release: { libraw_dcraw_clear_mem($0?.assumingMemoryBound(to: libraw_processed_image_t.self)) },
                                                   context: UnsafeMutableRawPointer(made))
            handedOver = true
            return developed
        }
    }

    /// The largest embedded JPEG's bytes exactly as the file holds them: LibRaw's pick (the largest a TIFF-shaped
    /// RAW lists), or a RAF's own preview when that is larger (LibRaw 0.20 takes the thumbnail inside it).
    /// Throws when the file has none, or only a bitmap thumbnail.
    public static func preview(_ path: String) throws -> [UInt8] {
        let libraw: [UInt8]? = try withOpened(path) { raw, identity in
            let unpacked = libraw_unpack_thumb(raw)
            let thumbnail = medley_raw_thumbnail(raw).pointee
            if unpacked == 0, thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG, let start = thumbnail.thumb, thumbnail.tlength > 0 {
                return Array(UnsafeRawBufferPointer(start: start, count: Int(thumbnail.tlength)))
            }
            if let fuji = try fujiPreview(path), fuji.count > 0 { return nil }  // the RAF's own, below
            if unpacked != 0 { throw failure(unpacked, "read the preview", identity, path) }
            throw MediaError(.libraw, "read the preview", "\(words(identity)): no embedded JPEG preview", cause: .unsupported, path: path)
        }
        guard let fuji = try fujiPreview(path), fuji.count > libraw?.count ?? 0 else { return libraw ?? [] }
        return fuji
    }

    /// A RAF's JPEG, where its header says (big-endian offset and length at bytes 84 and 88), when it is a JPEG.
    static func fujiPreview(_ path: String) throws -> [UInt8]? {
        let descriptor: Int32
        switch FileSystem.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw MediaError.system("open", errno: error.code, path: path)
        }
        defer { FileSystem.close(descriptor) }
        guard case .success(let header) = FileSystem.read(descriptor, count: 92, at: 0), header.count == 92,
              header.starts(with: Array("FUJIFILMCCD-RAW".utf8)) else { return nil }
        let bigEndian = { (at: Int) in header[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let offset = bigEndian(84), length = bigEndian(88)
        guard length > 3, length <= 64 << 20, case .success(let jpeg) = FileSystem.read(descriptor, count: length, at: Int64(offset)),
              jpeg.count == length, jpeg.starts(with: [0xFF, 0xD8, 0xFF]) else { return nil }
        return jpeg
    }

    // MARK: - LibRaw calls

    /// Opens `path` in a handle of its own, reads its header, runs `body`, and closes the handle.
    private static func withOpened<T>(_ path: String, adjustSizes: Bool = false, _ body: (UnsafeMutablePointer<libraw_data_t>, Identity) throws -> T) throws -> T {
        guard let raw = libraw_init(0) else {
            throw MediaError(.libraw, "open", "RAW file: LibRaw cannot start (out of memory)", cause: .library(code: Int32(LIBRAW_UNSUFFICIENT_MEMORY.rawValue)), path: path)
        }
        defer { libraw_close(raw) }
        // LibRaw's decoders go on past the end of a truncated file (or over corrupt data) and only tell its
        // data callback, which by default prints to stderr: the problems are counted here and fail the call.
        let problems = DataProblems()
        let context = Unmanaged.passUnretained(problems).toOpaque()
        libraw_set_dataerror_handler(raw, { context, _, offset in
            guard let context else { return }
            Unmanaged<DataProblems>.fromOpaque(context).takeUnretainedValue().note(offset: offset)
        }, context)
        libraw_set_memerror_handler(raw, { context, _, _ in
            guard let context else { return }
            Unmanaged<DataProblems>.fromOpaque(context).takeUnretainedValue().memory = true
        }, context)
        let opened = libraw_open_file(raw, path)
        // Before the header is read there is no camera to name.
        guard opened == 0 else { throw failure(opened, "open", nil, path) }
        let identity = self.identity(raw, adjustSizes: adjustSizes)
        let result = try withExtendedLifetime(problems) { try body(raw, identity) }
        if let problem = problems.words {
            throw MediaError(.libraw, "decode", "\(words(identity)): LibRaw: \(problem)",
                             cause: problems.memory ? .library(code: Int32(LIBRAW_UNSUFFICIENT_MEMORY.rawValue)) : .corruptData, path: path)
        }
        return result
    }

    /// What LibRaw's callbacks reported while one handle was in use (only that handle's thread calls them).
    private final class DataProblems {
        var endOfFile = false
        var corruptAt: Int32?
        var memory = false

        func note(offset: Int32) {
            if offset < 0 { endOfFile = true } else if corruptAt == nil { corruptAt = offset }
        }

        var words: String? {
            if memory { return "out of memory while decoding" }
            if endOfFile { return "unexpected end of file (the RAW is truncated)" }
            if let corruptAt { return "data corrupted at byte \(corruptAt)" }
            return nil
        }
    }

    private static func identity(_ raw: UnsafeMutablePointer<libraw_data_t>, adjustSizes: Bool) -> Identity {
        let parameters = libraw_get_iparams(raw).pointee
        let lens = libraw_get_lensinfo(raw).pointee
        let other = libraw_get_imgother(raw).pointee
        let sizes = medley_raw_sizes(raw).pointee
        let thumbnail = medley_raw_thumbnail(raw).pointee
        var identity = Identity(
            make: text(parameters.make), model: text(parameters.model),
            lens: { let exif = text(lens.Lens); return exif.isEmpty ? text(lens.makernotes.Lens) : exif }(),
            iso: Double(other.iso_speed), shutter: Double(other.shutter), aperture: Double(other.aperture),
            focalLength: Double(other.focal_len),
            taken: other.timestamp > 0 ? Date(timeIntervalSince1970: TimeInterval(other.timestamp)) : nil,
            sensorWidth: Int(sizes.raw_width), sensorHeight: Int(sizes.raw_height),
            width: Int(sizes.width), height: Int(sizes.height), orientation: orientation(flip: sizes.flip))
        // LibRaw's output size as dcraw makes it: a non-square pixel stretches one side, a Fuji SuperCCD is turned
        // 45°. Worked out in place, after which the handle cannot unpack: only `identify` asks for it.
        if adjustSizes, libraw_adjust_sizes_info_only(raw) == 0 {
            let after = medley_raw_sizes(raw).pointee
            let turned = after.flip & 4 != 0
            identity.width = Int(turned ? after.iheight : after.iwidth)
            identity.height = Int(turned ? after.iwidth : after.iheight)
        }
        // The header gives the preview's place and size; its format is known once it is unpacked (a bitmap one
        // is refused then).
        if thumbnail.tlength > 0, thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG || thumbnail.tformat == LIBRAW_THUMBNAIL_UNKNOWN {
            identity.preview = (Int(thumbnail.twidth), Int(thumbnail.theight), Int(thumbnail.tlength))
        }
        return identity
    }

    /// dcraw's `flip` (0, 3 = 180°, 5 = 90° anticlockwise, 6 = 90° clockwise) as the EXIF orientation.
    static func orientation(flip: Int32) -> Int {
        switch flip {
        case 3: return 3
        case 5: return 8
        case 6: return 6
        default: return 1
        }
    }

    /// A C string in a fixed-size field (a tuple of CChar), up to its NUL; trailing spaces go.
    private static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            let used = bytes.prefix { $0 != 0 }
            return String(decoding: used, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
    }

    private static func call(_ status: Int32, _ operation: String, _ identity: Identity, _ path: String) throws {
        guard status == 0 else { throw failure(status, operation, identity, path) }
    }

    /// "RAW file (Canon EOS 30D): LibRaw: <its words>": what failed, in LibRaw's words, with its code kept.
    /// A positive code is an errno (LibRaw passes on what `open` said); a negative one is LibRaw's own.
    static func failure(_ status: Int32, _ operation: String, _ identity: Identity?, _ path: String) -> MediaError {
        let cause: MediaError.Cause
        let reason: String
        if status > 0 {
            cause = .system(errno: status)
            reason = String(cString: strerror(status))
        } else {
            let corrupt = [LIBRAW_FILE_UNSUPPORTED, LIBRAW_DATA_ERROR, LIBRAW_IO_ERROR, LIBRAW_REQUEST_FOR_NONEXISTENT_IMAGE]
                .contains { $0.rawValue == status }
            cause = corrupt ? .corruptData : .library(code: status)
            reason = libraw_strerror(status).map { String(cString: $0) } ?? "error \(status)"
        }
        let what = ["open": "cannot read it", "unpack": "cannot unpack its data", "develop": "cannot develop it",
                    "read the preview": "cannot read its preview"][operation] ?? "cannot \(operation)"
        return MediaError(.libraw, operation, "\(words(identity)): LibRaw: \(reason) (\(what))", cause: cause, path: path)
    }

    private static func words(_ identity: Identity?) -> String {
        guard let camera = identity?.camera, !camera.isEmpty else { return "RAW file" }
        return "RAW file (\(camera))"
    }
}

extension VipsImage {
    /// A 16-bit image over interleaved samples (rows packed), not copied: once this returns, the image owns them and
    /// calls `release(context)` when it goes; when it throws they are still the caller's. Three bands are RGB16
    /// (sRGB primaries).
    static func wrapping(samples16 samples: UnsafePointer<UInt16>, width: Int, height: Int, bands: Int,
                         release: @convention(c) (UnsafeMutableRawPointer?) -> Void, context: UnsafeMutableRawPointer) throws -> VipsImage {
        try Vips.start()
        let (w, h, b) = (try int32(width), try int32(height), try int32(bands))
        return try wrap(medley_image_wrap_ushort(samples, w, h, b, release, context), "cannot build an image from the developed RAW")
    }
}
