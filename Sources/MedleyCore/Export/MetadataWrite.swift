import Foundation
import MedleyMedia

/// A name of `export.strip: [...]` or `keep: [...]` (docs/metadata.md, "Removing metadata"): a
/// group (`gps`, `serial`, `makerNotes`, `xmp.history`, `thumbnail`, `exif`, `iptc`, `xmp`, `icc`),
/// a short name (`copyright`, `creator`, `keywords`, …, each with the EXIF, IPTC and XMP fields it
/// is read from), `camera` (Make, Model) or one property (`exif.Artist`, `iptc.City`, `xmp.dc.rights`).
public struct MetadataSelector: Sendable, Equatable {
    public let name: String

    /// The groups and what each covers (its keys as exiv2 names them).
    public static let groups: [(name: String, covers: String)] = [
        ("gps", "every EXIF GPS field (Exif.GPSInfo.*) and XMP's exif:GPS* properties"),
        ("serial", "every field whose name holds SerialNumber: the body's, the lens', maker notes' and XMP aux:SerialNumber"),
        ("makerNotes", "the maker note (Exif.Photo.MakerNote) and every field exiv2 decodes from it (Exif.Canon.*, Exif.Nikon3.*, …)"),
        ("xmp.history", "XMP's edit history (xmpMM:History)"),
        ("thumbnail", "the EXIF thumbnail (IFD1 and its JPEG)"),
        ("camera", "Make, Model and the lens (EXIF, XMP tiff:/aux:/exifEX:)"),
        ("exif", "all EXIF"), ("iptc", "all IPTC"), ("xmp", "all XMP"),
        ("icc", "the ICC profile (the pixels are then written as sRGB)"),
    ]

    /// Whether `name` is one Medley knows: a group, a short name or a property of an image's metadata.
    public static func isKnown(_ name: String) -> Bool {
        if groups.contains(where: { $0.name == name }) { return true }
        if MetadataProperties.shortNames.contains(where: { $0.name == name }) { return true }
        return (name.hasPrefix("exif.") || name.hasPrefix("iptc.") || name.hasPrefix("xmp.")) && name.split(separator: ".").count >= 2
            && !name.hasSuffix(".")
    }

    /// Every name a user may write (for suggestions).
    public static var names: [String] {
        groups.map(\.name) + MetadataProperties.shortNames.map(\.name)
    }

    public init(_ name: String) { self.name = name }

    static let standardExif: Set<String> = ["Image", "Photo", "GPSInfo", "Iop", "Thumbnail"]

    /// Whether the exiv2 key is covered by this name.
    public func matches(_ key: String) -> Bool {
        let parts = key.split(separator: ".", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { return false }
        switch name {
        case "gps": return key.hasPrefix("Exif.GPSInfo.") || key.hasPrefix("Xmp.exif.GPS")
        case "serial": return parts[2].lowercased().contains("serialnumber")
        case "makerNotes":
            return parts[0] == "Exif" && (parts[2] == "MakerNote" || !(Self.standardExif.contains(parts[1])
                || parts[1].hasPrefix("SubImage") || parts[1].hasPrefix("Image")))
        case "xmp.history": return key.hasPrefix("Xmp.xmpMM.History")
        case "thumbnail": return key.hasPrefix("Exif.Thumbnail.")
        case "camera":
            return ["Exif.Image.Make", "Exif.Image.Model", "Exif.Photo.LensMake", "Exif.Photo.LensModel", "Exif.Photo.LensSpecification",
                    "Xmp.tiff.Make", "Xmp.tiff.Model", "Xmp.aux.Lens", "Xmp.exifEX.LensModel", "Xmp.exifEX.LensMake"].contains(key)
        case "exif": return parts[0] == "Exif"
        case "iptc": return parts[0] == "Iptc"
        case "xmp": return parts[0] == "Xmp"
        case "icc": return false
        default: break
        }
        if let short = MetadataProperties.shortNames.first(where: { $0.name == name }) {
            if short.keys.contains(key) { return true }
            // A date's companions: its IPTC time, its EXIF sub-seconds and offset.
            if name == "dateTaken" {
                return ["Iptc.Application2.TimeCreated", "Exif.Photo.SubSecTimeOriginal", "Exif.Photo.OffsetTimeOriginal"].contains(key)
            }
            // GPS positions with their references.
            if name.hasPrefix("gps.") { return short.keys.contains { key == $0 + "Ref" } }
            return false
        }
        let property = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard property.count == 2 else { return false }
        switch property[0] {
        case "exif":
            let tail = property[1]
            if tail.contains(".") { return key == "Exif." + tail }
            return parts[0] == "Exif" && ["Image", "Photo", "GPSInfo", "Iop"].contains(parts[1]) && parts[2] == tail
        case "iptc":
            return key == "Iptc.Application2." + property[1] || key == "Iptc." + property[1]
        case "xmp":
            return key == "Xmp." + property[1] || key.hasPrefix("Xmp." + property[1] + "[") || key.hasPrefix("Xmp." + property[1] + "/")
        default:
            return false
        }
    }
}

/// What `export.strip` asks of an image's metadata.
public enum MetadataStrip: Sendable, Equatable {
    /// `strip: false` (default) or `strip: true` without `keep`: libvips' saver keeps or drops it all.
    case libvips
    /// `strip: [gps, serial, …]`: those removed from the output, the rest kept.
    case remove([MetadataSelector])
    /// `strip: true` with `keep: [copyright, creator]`: only those, copied from the input.
    case keepOnly([MetadataSelector])

    /// Whether libvips' saver must drop everything first (the rest is then copied from the input):
    /// with `keep`, or when the list names the ICC profile, which exiv2 cannot remove.
    public var savesStripped: Bool {
        switch self {
        case .libvips: return false
        case .keepOnly: return true
        case .remove(let names): return names.contains { $0.name == "icc" }
        }
    }
}

/// `tag: { shiftDates: "+1:00:00" }`: a shift of every date field as exiftool's `AllDates`
/// (DateTimeOriginal, CreateDate — exiv2's DateTimeDigitized — and ModifyDate — DateTime), in
/// exiftool's syntax: `[+|-]H[:M[:S]]` or `[+|-]Y:M:D H:M:S`.
public struct DateShift: Sendable, Equatable {
    public let text: String
    public var years = 0, months = 0, days = 0, seconds = 0

    /// The EXIF fields it shifts, as exiftool's AllDates.
    public static let keys = ["Exif.Photo.DateTimeOriginal", "Exif.Photo.DateTimeDigitized", "Exif.Image.DateTime"]
    /// The properties that hold them (and `dateTaken`).
    public static let properties = ["exif.DateTimeOriginal", "exif.DateTimeDigitized", "exif.DateTime"]

    public init?(_ text: String) {
        self.text = text
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1
        if rest.first == "+" || rest.first == "-" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        let halves = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard halves.count == 1 || halves.count == 2 else { return nil }
        func numbers(_ part: Substring) -> [Int]? {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            let values = fields.compactMap { Int($0) }
            return values.count == fields.count && values.allSatisfy({ $0 >= 0 && $0 < 100_000 }) ? values : nil
        }
        var time: [Int]
        if halves.count == 2 {
            guard let date = numbers(halves[0]), date.count == 3, let clock = numbers(halves[1]), (1...3).contains(clock.count) else { return nil }
            (years, months, days) = (sign * date[0], sign * date[1], sign * date[2])
            time = clock
        } else {
            guard let clock = numbers(halves[0]), (1...3).contains(clock.count) else { return nil }
            time = clock
        }
        while time.count < 3 { time.append(0) }
        seconds = sign * (time[0] * 3600 + time[1] * 60 + time[2])
    }

    /// An EXIF date ("2024:05:01 10:04:09") shifted, in the same form; nil when it is not one.
    public func shifted(exif text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let characters = Array(trimmed)
        guard characters.count >= 19 else { return nil }
        let fields = [0..<4, 5..<7, 8..<10, 11..<13, 14..<16, 17..<19].map { Int(String(characters[$0])) }
        guard fields.allSatisfy({ $0 != nil }) else { return nil }
        let v = fields.compactMap { $0 }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let start = calendar.date(from: DateComponents(year: v[0], month: v[1], day: v[2], hour: v[3], minute: v[4], second: v[5])),
              let moved = calendar.date(byAdding: DateComponents(year: years, month: months, day: days, second: seconds), to: start) else { return nil }
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: moved)
        guard let year = c.year, (0...9999).contains(year) else { return nil }
        return String(format: "%04d:%02d:%02d %02d:%02d:%02d", year, c.month ?? 1, c.day ?? 1, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
            + String(characters[19...])
    }

    /// A property's date (EXIF or ISO 8601 form) shifted, in the same form.
    public func shifted(property text: String) -> String? {
        let iso = text.count >= 19 && Array(text)[4] == "-"
        guard iso else { return shifted(exif: text) }
        var exif = Array(text)
        exif[4] = ":"; exif[7] = ":"; exif[10] = " "
        guard let moved = shifted(exif: String(exif)) else { return nil }
        var back = Array(moved)
        back[4] = "-"; back[7] = "-"; back[10] = "T"
        return String(back)
    }
}

/// What an image's output gets written into its metadata after libvips saved it (on the
/// temporary, before it is put in place), through the exiv2 adapter: `export.strip` lists and
/// `keep`, the properties `tag.set` gave, `tag.shiftDates`; and the `.xmp` sidecar's text
/// (`tag.sidecar`). Sources are never opened for writing.
public struct MetadataWrite: Sendable {
    public var strip: MetadataStrip = .libvips
    /// The image properties `tag.set` assigned (their values are the item's after the tag stage).
    public var set: [String] = []
    public var shift: DateShift?
    public var sidecar = false
    /// The input's families copied into the output because the encoder left them out (libvips writes
    /// no EXIF or IPTC into a TIFF, no IPTC into a PNG; nothing of a RAW's). Set per item.
    public var carry: Set<MetadataFamily> = []

    public init() {}

    /// Whether there is anything to write.
    public var isEmpty: Bool { strip == .libvips && set.isEmpty && shift == nil && !sidecar && carry.isEmpty }

    /// The image properties `tag.set` can write, and the fields each is written to (in every
    /// family the output's format holds).
    public static let writable: [String: [String]] = [
        "creator": ["Exif.Image.Artist", "Xmp.dc.creator", "Iptc.Application2.Byline"],
        "copyright": ["Exif.Image.Copyright", "Xmp.dc.rights", "Iptc.Application2.Copyright"],
        "keywords": ["Xmp.dc.subject", "Iptc.Application2.Keywords"],
        "rating": ["Xmp.xmp.Rating"],
        "label": ["Xmp.xmp.Label"],
        "title": ["Xmp.dc.title", "Iptc.Application2.ObjectName"],
        "caption": ["Xmp.dc.description", "Iptc.Application2.Caption", "Exif.Image.ImageDescription"],
        "dateTaken": ["Exif.Photo.DateTimeOriginal", "Xmp.exif.DateTimeOriginal"],
        "lens": ["Exif.Photo.LensModel"],
    ]

    /// Several-valued fields: a property's "; "-joined text is written as a list.
    static let lists: Set<String> = ["Xmp.dc.subject", "Xmp.dc.creator", "Iptc.Application2.Keywords"]

    /// Writes into the image at `output` (a temporary, of `format`); returns the item's warnings and,
    /// with `sidecar`, the XMP packet to put beside the output. `source` is the input (read only, for
    /// `keep`); `orientedUpright`: the pixels were turned upright (the orientation copied is 1). A
    /// JPEG XL output's metadata is put together on a scratch JPEG and boxed with its codestream.
    public func apply(to output: String, format: ImageFormat, source: String, width: Int, height: Int, orientedUpright: Bool,
                      property: (String) -> TemplateValue?) throws -> (warnings: [String], sidecar: String?) {
        guard !isEmpty else { return ([], nil) }
        let boxed = format == .jxl
        let metadata = try Self.opening { boxed ? try ImageMetadata.scratch() : try ImageMetadata.open(path: output) }
        var warnings = edit(metadata, format: format, source: source, width: width, height: height,
                            orientedUpright: orientedUpright, property: property)
        do {
            if boxed {
                try box(metadata, into: output)
            } else {
                try metadata.save(to: output)
            }
        } catch {
            throw ItemFailure(.output, "cannot write the output's metadata: \(error)", cause: error)
        }
        warnings += metadata.warnings.map { "metadata: \($0)" }
        guard sidecar else { return (warnings, nil) }
        return (warnings, try (boxed ? metadata : try ImageMetadata.open(path: output)).xmpPacket())
    }

    /// The same edit of an image held in memory (a metadata-only job's copy of its input, `image`, of
    /// `format`, never JPEG XL): read, changed and written back through exiv2 without a file, so the
    /// output is written once by the caller. `output` names the image in messages. Returns the edited
    /// image's bytes.
    public func applied(to image: [UInt8], format: ImageFormat, output: String, source: String, width: Int, height: Int,
                        orientedUpright: Bool, property: (String) -> TemplateValue?) throws -> (image: [UInt8], warnings: [String], sidecar: String?) {
        guard !isEmpty else { return (image, [], nil) }
        let metadata = try Self.opening { try ImageMetadata.open(bytes: image, origin: output) }
        var warnings = edit(metadata, format: format, source: source, width: width, height: height,
                            orientedUpright: orientedUpright, property: property)
        let edited: [UInt8]
        do {
            edited = try metadata.saved(into: image)
        } catch {
            throw ItemFailure(.output, "cannot write the output's metadata: \(error)", cause: error)
        }
        warnings += metadata.warnings.map { "metadata: \($0)" }
        guard sidecar else { return (edited, warnings, nil) }
        let written = try ImageMetadata.open(bytes: edited, origin: output)
        return (edited, warnings, try written.xmpPacket())
    }

    /// The output's metadata as read for the edit; a failure is the item's output failure.
    private static func opening(_ open: () throws -> ImageMetadata) throws -> ImageMetadata {
        do {
            return try open()
        } catch {
            throw ItemFailure(.output, "cannot write the output's metadata (export.strip, tag): \(error)", cause: error)
        }
    }

    /// The JPEG XL codestream libvips wrote at `output`, in a container with the EXIF and XMP put together
    /// in `metadata` (left a bare codestream when there are none).
    func box(_ metadata: ImageMetadata, into output: String) throws {
        let exif = try metadata.exifBlock()
        let xmp = metadata.hasXMP ? try metadata.xmpPacket() : nil
        guard exif != nil || xmp != nil else { return }
        let url = URL(fileURLWithPath: output)
        let codestream = [UInt8](try Data(contentsOf: url))
        try Data(try JPEGXLContainer.wrap(codestream: codestream, exif: exif, xmp: xmp)).write(to: url)
    }

    /// What the encoder left out (`carry`), the strip list or `keep`, the `tag.set` fields and the date
    /// shift, made in `metadata` (of an output of `format`, not yet saved); returns the item's warnings.
    func edit(_ metadata: ImageMetadata, format: ImageFormat, source: String, width: Int, height: Int, orientedUpright: Bool,
              property: (String) -> TemplateValue?) -> [String] {
        var warnings: [String] = []
        let families = format.exiv2Writes
        func holds(_ key: String) -> Bool { families.contains(MetadataTag.family(of: key)) }
        func copy(take: (String) -> Bool) -> [String] {
            self.copy(from: source, into: metadata, holds: families, width: width, height: height, upright: orientedUpright, take: take)
        }

        if !carry.isEmpty {
            // Before the strip list, which then removes what it names from these too.
            warnings += copy { key in
                carry.contains(MetadataTag.family(of: key)) && Self.carriable(key)
            }
        }

        switch strip {
        case .libvips:
            break
        case .remove(let names):
            for key in metadata.keys where names.contains(where: { $0.matches(key) }) {
                metadata.clear(key)
                // An XMP structure's array ("Xmp.xmpMM.History" of "Xmp.xmpMM.History[1]/stEvt:action")
                // is not listed, but would be written back empty.
                if let bracket = key.firstIndex(of: "[") { metadata.clear(String(key[..<bracket])) }
            }
            if names.contains(where: { $0.name == "thumbnail" || $0.name == "exif" }) { metadata.eraseThumbnail() }
            if strip.savesStripped {
                // libvips dropped everything (for the ICC profile): the rest comes back from the input.
                warnings += copy { key in
                    !names.contains { $0.matches(key) } && Self.carriable(key)
                }
            }
        case .keepOnly(let names):
            warnings += copy { key in
                names.contains { $0.matches(key) } && Self.carriable(key)
            }
        }

        for name in set {
            guard let keys = Self.writable[name] else { continue }
            let written = keys.filter(holds)
            if written.isEmpty {
                warnings.append("tag.set.\(name): this output's format holds none of \(keys.joined(separator: ", ")); not written")
                continue
            }
            guard let value = property(name) else {
                for key in written { metadata.clear(key) }
                continue
            }
            for key in written {
                do {
                    try write(value, name: name, key: key, into: metadata)
                } catch {
                    warnings.append("tag.set.\(name): \(key) not written: \(error)")
                }
            }
        }

        if let shift {
            for key in DateShift.keys {
                guard case .text(let text)? = metadata.value(key) else { continue }
                guard let moved = shift.shifted(exif: text) else {
                    warnings.append("tag.shiftDates: \(key) '\(text)' is not a date; left as it was")
                    continue
                }
                do { try metadata.set(key, text: moved) } catch { warnings.append("tag.shiftDates: \(key) not written: \(error)") }
            }
        }
        return warnings
    }

    /// Whether a field of the input describes the picture rather than its file's layout, so that it
    /// may be copied into another file: not the EXIF thumbnail, not a second image's IFD (a RAW's
    /// full-size JPEG, a DNG's raw data), not the TIFF layout of IFD0 (sizes, strips, tiles,
    /// compression, the pointers to other IFDs), not the blocks exiv2 keeps as families of their
    /// own (XMP and IPTC inside IFD0, the ICC profile, which libvips writes), not DNG's
    /// raw-processing tags (0xC612 onwards; the body's serial number and lens range are kept), which describe sensor data the output does not hold.
    static func carriable(_ key: String) -> Bool {
        let parts = key.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, parts[0] == "Exif" else { return true }
        let group = parts[1], tag = String(parts[2])
        if group == "Thumbnail" || group.hasPrefix("SubImage") || (group.hasPrefix("Image") && group != "Image") { return false }
        if group == "Photo" { return tag != "InteroperabilityTag" }
        guard group == "Image" else { return true }
        return !layoutTags.contains(tag) && !tag.hasPrefix("DNG") && !dngTags.contains(tag)
    }

    /// IFD0's tags of the file's layout (TIFF 6.0's baseline and extension tags that describe how the
    /// samples are stored) and pointers.
    static let layoutTags: Set<String> = [
        "NewSubfileType", "SubfileType", "ImageWidth", "ImageLength", "BitsPerSample", "Compression",
        "PhotometricInterpretation", "Thresholding", "CellWidth", "CellLength", "FillOrder", "StripOffsets",
        "SamplesPerPixel", "RowsPerStrip", "StripByteCounts", "MinSampleValue", "MaxSampleValue",
        "PlanarConfiguration", "GrayResponseUnit", "GrayResponseCurve", "T4Options", "T6Options", "Predictor",
        "ColorMap", "HalftoneHints", "TileWidth", "TileLength", "TileOffsets", "TileByteCounts", "SubIFDs",
        "InkSet", "ExtraSamples", "SampleFormat", "SMinSampleValue", "SMaxSampleValue", "TransferRange",
        "JPEGTables", "JPEGProc", "JPEGInterchangeFormat", "JPEGInterchangeFormatLength", "JPEGRestartInterval",
        "JPEGLosslessPredictors", "JPEGPointTransforms", "JPEGQTables", "JPEGDCTables", "JPEGACTables",
        "YCbCrCoefficients", "YCbCrSubSampling", "YCbCrPositioning", "ReferenceBlackWhite", "TransferFunction",
        "XMLPacket", "IPTCNAA", "InterColorProfile", "ExifTag", "GPSTag", "ImageResources",
        "CFARepeatPatternDim", "CFAPattern", "CFAPlaneColor", "CFALayout",
    ]

    /// DNG's tags (0xC612 onwards) whose exiv2 names do not start with "DNG".
    static let dngTags: Set<String> = [
        "UniqueCameraModel", "LocalizedCameraModel", "LinearizationTable", "BlackLevelRepeatDim", "BlackLevel",
        "BlackLevelDeltaH", "BlackLevelDeltaV", "WhiteLevel", "DefaultScale", "DefaultCropOrigin", "DefaultCropSize",
        "ColorMatrix1", "ColorMatrix2", "CameraCalibration1", "CameraCalibration2", "ReductionMatrix1",
        "ReductionMatrix2", "AnalogBalance", "AsShotNeutral", "AsShotWhiteXY", "BaselineExposure", "BaselineNoise",
        "BaselineSharpness", "BayerGreenSplit", "LinearResponseLimit", "ChromaBlurRadius",
        "AntiAliasStrength", "ShadowScale", "MakerNoteSafety", "CalibrationIlluminant1", "CalibrationIlluminant2",
        "BestQualityScale", "RawDataUniqueID", "OriginalRawFileName", "OriginalRawFileData", "ActiveArea",
        "MaskedAreas", "AsShotICCProfile", "AsShotPreProfileMatrix", "CurrentICCProfile", "CurrentPreProfileMatrix",
        "ColorimetricReference", "CameraCalibrationSignature", "ProfileCalibrationSignature", "AsShotProfileName",
        "NoiseReductionApplied", "ProfileName", "ProfileHueSatMapDims", "ProfileHueSatMapData1",
        "ProfileHueSatMapData2", "ProfileToneCurve", "ProfileEmbedPolicy", "ProfileCopyright", "ForwardMatrix1",
        "ForwardMatrix2", "PreviewApplicationName", "PreviewApplicationVersion", "PreviewSettingsName",
        "PreviewSettingsDigest", "PreviewColorSpace", "PreviewDateTime", "RawImageDigest", "OriginalRawFileDigest",
        "SubTileBlockSize", "RowInterleaveFactor", "ProfileLookTableDims", "ProfileLookTableData", "OpcodeList1",
        "OpcodeList2", "OpcodeList3", "NoiseProfile",
    ]

    /// One property's value into one field, as that field's type takes it.
    func write(_ value: TemplateValue, name: String, key: String, into metadata: ImageMetadata) throws {
        let text = value.text
        if Self.lists.contains(key) {
            let items = text.components(separatedBy: "; ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            metadata.clear(key)
            try metadata.set(key, values: items)
            return
        }
        if name == "dateTaken" {
            // EXIF wants "2024:05:01 10:04:09"; XMP takes ISO 8601 as written.
            let characters = Array(text)
            if key.hasPrefix("Exif."), characters.count >= 19 {
                var exif = characters
                exif[4] = ":"; exif[7] = ":"; exif[10] = " "
                try metadata.set(key, text: String(exif[0..<19]))
                return
            }
        }
        try metadata.set(key, text: text)
    }

    /// Copies the input's fields that `take` accepts into the output (the orientation as 1 when the
    /// pixels were turned upright, the EXIF pixel dimensions as the output's). Returns warnings.
    func copy(from source: String, into metadata: ImageMetadata, holds families: Set<MetadataFamily>, width: Int, height: Int,
              upright: Bool, take: (String) -> Bool) -> [String] {
        let input: ImageMetadata
        do {
            input = try ImageMetadata.open(path: source)
        } catch {
            return ["metadata: the input's metadata cannot be read by exiv2 (\(error)); none of it is in the output"]
        }
        var failed: [String] = []
        var dropped = Set<String>()
        var arrays = Set<String>()
        let tags = input.tags
        // A maker note exiv2 decoded (Exif.Canon.*, Exif.Nikon3.*) is written again from its fields; its raw
        // block set as well is refused ("not encoded").
        let makerNote = MetadataSelector("makerNotes")
        let decoded = tags.contains { $0.key != "Exif.Photo.MakerNote" && makerNote.matches($0.key) }
        for tag in tags where take(tag.key) && !(decoded && tag.key == "Exif.Photo.MakerNote") {
            guard families.contains(tag.family) else { dropped.insert(tag.family.rawValue.uppercased()); continue }
            // An XMP structure in an array ("Xmp.xmpMM.History[1]/stEvt:action"): its array is made
            // first; deeper structures are not copied (setting them unmade breaks the whole packet).
            if tag.family == .xmp, let bracket = tag.key.firstIndex(of: "[") {
                let base = String(tag.key[..<bracket])
                let rest = tag.key[bracket...]
                guard rest.filter({ $0 == "[" }).count == 1, rest.filter({ $0 == "/" }).count <= 1 else {
                    failed.append(tag.key)
                    continue
                }
                if arrays.insert(base).inserted {
                    do { try metadata.setArray(base, type: ImageMetadata.typeName(base)) } catch { failed.append(base) }
                }
            }
            do {
                if let list = tag.raw.list, tag.family == .xmp ? (tag.raw.type == "XmpBag" || tag.raw.type == "XmpSeq") : list.count > 1 {
                    try metadata.set(tag.key, values: list)
                } else {
                    try metadata.set(tag.key, text: tag.raw.text)
                }
            } catch {
                failed.append(tag.key)
            }
        }
        if upright, metadata.has("Exif.Image.Orientation") { try? metadata.set("Exif.Image.Orientation", text: "1") }
        if metadata.has("Exif.Photo.PixelXDimension") { try? metadata.set("Exif.Photo.PixelXDimension", text: String(width)) }
        if metadata.has("Exif.Photo.PixelYDimension") { try? metadata.set("Exif.Photo.PixelYDimension", text: String(height)) }
        var warnings: [String] = []
        if !dropped.isEmpty { warnings.append("this output's format cannot hold the input's \(dropped.sorted().joined(separator: ", ")); not written") }
        if !failed.isEmpty { warnings.append("metadata not carried: \(failed.prefix(10).joined(separator: ", "))\(failed.count > 10 ? " and \(failed.count - 10) more" : "")") }
        return warnings
    }
}
