import Foundation
import MedleyFilters
import MedleyMedia

/// The image steps of a camera RAW (`ingest.raw`): its header and properties read by LibRaw (before `where`),
/// then — with the memory it needs held — developed (or its embedded preview decoded) into a picture that goes
/// through the job's filters and export like any image's.
///
/// A RAW is never read by libvips or libtiff (which would give the small thumbnail a NEF or DNG stores first).
/// Its sensor's size counts against `limits.maxPixels` before anything is unpacked; its developed picture is
/// held in memory, so the memory budget takes what LibRaw and the copy need (`RawFile.Identity.developMemory`).
enum RawStep {
    /// Reads the RAW's header: its properties, and a stand-in picture of the developed size (no pixels are made
    /// until it is rendered).
    static func read(_ item: Item, stage: ImageStage) throws -> OpenedItem {
        let identity = try identify(item)
        try checkPixels(identity, mode: stage.raw, limit: stage.maxPixels)
        let header: VipsImage
        do {
            header = try VipsImage.constant(width: identity.uprightWidth, height: identity.uprightHeight, values: [0, 0, 0])
        } catch let error as MediaError {
            throw ItemFailure(error, context: "cannot decode")
        }
        let properties = RawProperties(file: item.file, persistentID: item.persistentID, identity: identity, readPath: item.source)
        var messages = LibraryMessages()
        properties.warnings.forEach { messages.note($0) }
        return OpenedItem(content: .image(header: header, messages: messages), mediaType: .image, properties: properties.values)
    }

    /// The RAW's header, or the item's failure in LibRaw's words ("RAW file (Canon EOS 30D): LibRaw: …").
    static func identify(_ item: Item) throws -> RawFile.Identity {
        do {
            return try RawFile.identify(item.source)
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
    }

    /// The limit on what is decoded: the sensor's whole frame for `develop`, the embedded picture for `preview`.
    static func checkPixels(_ identity: RawFile.Identity, mode: RawMode, limit: Int) throws {
        switch mode {
        case .develop:
            try ImageStage.checkPixels(width: identity.sensorWidth, height: identity.sensorHeight, limit: limit,
                                       of: "the RAW's sensor (\(identity.camera))")
            try ImageStage.checkPixels(width: identity.width, height: identity.height, limit: limit,
                                       of: "the developed RAW (\(identity.camera))")
        case .preview:
            // No preview, or one whose size only its JPEG header tells: checked once it is read.
            guard let preview = identity.preview, preview.width > 0, preview.height > 0 else { return }
            try ImageStage.checkPixels(width: preview.width, height: preview.height, limit: limit,
                                       of: "the RAW's preview (\(identity.camera))")
        }
    }

    /// Develops (or takes the preview of) the RAW, renders it through the job's filters into its output.
    static func render(_ opened: OpenedItem, header: VipsImage, messages: LibraryMessages, _ item: Item,
                       stage: ImageStage, exporter: Exporter, threads: Int) throws -> StepOutcome {
        var messages = messages
        let identity = try identify(item)
        let format = stage.outputFormat(for: header)
        let decoding = stage.raw == .develop ? identity.developMemory : 4 * identity.uprightWidth * identity.uprightHeight
        var warnings: [String] = []
        var analysis: ImageAnalysis?
        var sidecar: (name: OutputName, packet: String)?
        let exported = try exporter.write(item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                                          memory: stage.workingMemory(header, threads: threads) + decoding,
                                          property: { opened[$0] }) { temporary, name in
            warnings = try render(item, identity: identity, format: format, to: temporary, stage: stage, messages: &messages,
                                  property: { opened[$0] })
            // The RAW's EXIF (maker notes too), IPTC and XMP as exiv2 reads them — libvips got the picture
            // alone — then the strip list and the tag stage's fields. The picture stands upright.
            let carry = MetadataStep.carried(stage, format: format, inputHolds: [.exif, .iptc, .xmp], encoderWrote: [])
            if !stage.export.strip && format.exiv2Writes.isEmpty {
                warnings.append("the RAW's camera metadata (EXIF, maker notes, XMP) cannot be written into a .\(format.fileExtension) output "
                                + "by exiv2; not carried (export as jpeg, png, webp or tiff to keep it)")
            }
            let edit = try MetadataStep.write(temporary, source: item.source, stage: stage, format: format, carry: carry,
                                              upright: true) { opened[$0] }
            warnings += edit.warnings
            sidecar = edit.sidecar.map { (name, $0) }
            if !stage.analyses.isEmpty {
                do {
                    analysis = try Vips.run(collectingInto: &messages) { _ in try ImageAnalyzer.analyze(fileAt: temporary, stage.analyses) }
                } catch {
                    warnings.append("analyze: not recorded (\(error))")
                }
            }
        }
        guard case .written(var written) = exported else { return exported }
        if let sidecar { written.warnings += MetadataStep.writeSidecar(sidecar.packet, beside: sidecar.name, exporter: exporter) }
        written.analysis = analysis
        written.warnings += warnings + messages.lines
        return .written(written)
    }

    /// The picture of the RAW (developed, or its preview turned upright), through the job's plan and watermark,
    /// encoded into `temporary`. Returns the item's warnings.
    static func render(_ item: Item, identity: RawFile.Identity, format: ImageFormat, to temporary: String,
                       stage: ImageStage, messages: inout LibraryMessages,
                       property: (String) -> TemplateValue?) throws -> [String] {
        do {
            return try Vips.run(collectingInto: &messages) { _ in
                var warnings: [String] = []
                if stage.autoAdjust != nil {
                    warnings.append("autoAdjust is not applied to RAW files yet; the job's own filters are")
                }
                let picture = try self.picture(item, identity: identity, stage: stage, warnings: &warnings)
                var image = try stage.renderer.render(frame: picture, property: property, warnings: &warnings)
                image = try OutputColour(export: stage.export).prepare(image, input: picture, format: format, warnings: &warnings)
                image = try image.attributedToCurrentItem()
                try image.save(to: temporary, format: format, options: stage.saveOptions(for: format))
                return warnings
            }
        } catch let error as MediaError where error.library == .libraw {
            throw ItemFailure(error)
        } catch let error as MediaError {
            throw ItemFailure(error, context: "cannot decode or encode")
        }
    }

    /// The developed picture (upright, 16-bit sRGB) or the embedded preview (decoded, turned as the RAW says).
    private static func picture(_ item: Item, identity: RawFile.Identity, stage: ImageStage,
                                warnings: inout [String]) throws -> VipsImage {
        switch stage.raw {
        case .develop:
            return try RawFile.develop(item.source) { header in
                try checkPixels(header, mode: .develop, limit: stage.maxPixels)
            }
        case .preview:
            let bytes = try RawFile.preview(item.source)
            let size = try VipsImage.headerSize(bytes: bytes)
            try ImageStage.checkPixels(width: size.width, height: size.height, limit: stage.maxPixels,
                                       of: "the RAW's preview (\(identity.camera))")
            var preview = try VipsImage.decoded(bytes: bytes)
            // The camera stores its preview as the sensor lies and the RAW's orientation turns both; a preview with
            // an orientation of its own is turned by that (and its tag reset, so no viewer turns it again).
            if preview.orientation != 1 {
                preview = try preview.autoOriented()
            } else {
                switch identity.orientation {
                case 3: preview = try preview.rotated(quarterTurns: 2)
                case 6: preview = try preview.rotated(quarterTurns: 1)
                case 8: preview = try preview.rotated(quarterTurns: 3)
                default: break
                }
            }
            if let asked = askedSize(stage), asked.width > preview.width || asked.height > preview.height {
                warnings.append("raw: preview: the embedded preview is \(preview.width) × \(preview.height), smaller than the "
                                + "\(asked.width) × \(asked.height) asked; it is enlarged or left smaller (ingest.raw: develop gives the "
                                + "sensor's \(identity.uprightWidth) × \(identity.uprightHeight))")
            }
            return preview
        }
    }

    /// The box of the plan's first resize (0 = that side unbounded), or nil when the plan does not resize first.
    private static func askedSize(_ stage: ImageStage) -> (width: Int, height: Int)? {
        guard case .resize(let width, let height, _, _)? = stage.renderer.plan?.root.firstGeometry else { return nil }
        return (width, height)
    }
}

/// A RAW's properties, named as an image's are (`exif.Make`, `exif.FNumber` …, so `where` and templates read a RAW
/// as they read a JPEG), from LibRaw's reading of the header, plus the sensor's size.
struct RawProperties {
    var values: [(name: String, value: TemplateValue)]
    /// What reading the metadata said (a damaged maker note, a sidecar that is not XMP).
    var warnings: [String] = []

    /// The picture's facts as LibRaw reads them (sizes, orientation, the sensor, the preview), and the
    /// metadata as exiv2 reads it — EXIF with the maker notes, IPTC, XMP and the sidecar's XMP, the
    /// same properties as any image's (`MetadataProperties`). The camera fields LibRaw knows stand in
    /// only where exiv2 reads none (a format exiv2 0.27 does not know, such as CR3).
    init(file: IngestedFile, persistentID: UInt64, identity: RawFile.Identity, readPath: String? = nil) {
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: .image) + [
            ("format", .text(SniffedFormat.raw.format)),
            ("width", .integer(identity.width)),
            ("height", .integer(identity.height)),
            ("channels", .integer(3)),
            ("bitDepth", .integer(16)),
            ("orientation", .integer(identity.orientation)),
            ("sensorWidth", .integer(identity.sensorWidth)),
            ("sensorHeight", .integer(identity.sensorHeight)),
        ]
        if let preview = identity.preview {
            values += [("previewWidth", .integer(preview.width)), ("previewHeight", .integer(preview.height))]
        }
        let metadata = MetadataProperties.read(path: file.path, readPath: readPath)
        warnings = metadata.warnings
        values += metadata.values.filter { entry in !values.contains { $0.name == entry.name } }
        var libraw: [(name: String, value: TemplateValue)] = []
        if !identity.make.isEmpty { libraw.append(("exif.Make", .text(identity.make))) }
        if !identity.camera.isEmpty { libraw.append(("exif.Model", .text(identity.camera))) }
        if !identity.lens.isEmpty { libraw.append(("exif.LensModel", .text(identity.lens))) }
        if let taken = identity.taken { libraw.append(("exif.DateTimeOriginal", .text(Self.exifDate(taken)))) }
        // LibRaw keeps these as 32-bit floats: read back as the shortest decimal that is that float (1/125 s is 0.008).
        if identity.shutter > 0 { libraw.append(("exif.ExposureTime", .number(Self.decimal(identity.shutter)))) }
        if identity.aperture > 0 { libraw.append(("exif.FNumber", .number(Self.decimal(identity.aperture)))) }
        if identity.focalLength > 0 { libraw.append(("exif.FocalLength", .number(Self.decimal(identity.focalLength)))) }
        if identity.iso > 0 {
            let iso = Self.decimal(identity.iso)
            libraw.append(("exif.ISOSpeedRatings", Int(exactly: iso).map { .integer($0) } ?? .number(iso)))
        }
        libraw.append(("exif.Orientation", .integer(identity.orientation)))
        values += libraw.filter { entry in !values.contains { $0.name == entry.name } }
    }

    static func decimal(_ value: Double) -> Double {
        Double("\(Float(value))") ?? value
    }

    /// EXIF's "yyyy:MM:dd HH:mm:ss", in the local time LibRaw read the camera's clock as.
    static func exifDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return formatter.string(from: date)
    }
}

/// `medley probe` of a RAW: its header as LibRaw reads it.
enum RawProbe {
    static func properties(_ file: IngestedFile, persistentID: UInt64) throws -> [(name: String, value: TemplateValue)] {
        do {
            let identity = try RawFile.identify(file.path)
            let properties = RawProperties(file: file, persistentID: persistentID, identity: identity)
            var values = properties.values
            var warnings = properties.warnings
            if identity.preview == nil { warnings.append("no embedded JPEG preview (ingest.raw: preview cannot read it)") }
            if !warnings.isEmpty { values.append(("warnings", .text(warnings.joined(separator: "; ")))) }
            return values
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
    }
}
