import Foundation
import MedleyMedia

/// Writes a job's contact sheets from its finished manifest: the exported images (filters
/// applied) in order of relative path, grouped by `per:`, each sheet placed atomically through
/// the export root and listed in `.medley/contact-sheets-<job>.jsonl` with its items. A sheet whose
/// items and options are those of the last run, and whose file is still there, is not redone.
enum ContactSheet {
    struct Entry {
        var item: String
        var output: String
        var key: String
        var properties: [(name: String, value: TemplateValue)]
    }

    struct Summary { var written = 0, unchanged = 0, failedItems = 0, failedSheets = 0, warnings: [String] = [] }

    static func recordsName(job: String) -> String { "contact-sheets-" + ManifestWriter.fileSafe(job) + ".jsonl" }

    /// The job's exported images from its manifest lines, sorted byte-wise by relative path.
    static func entries(fromManifestLines lines: [String]) -> [Entry] {
        var entries: [Entry] = []
        for line in lines where !line.isEmpty {
            guard let record = try? ManifestRecord(line: line), let output = record.output, record.status != .failed,
                  Playlist.imageExtensions.contains((output as NSString).pathExtension.lowercased()) else { continue }
            let item = record.item.isEmpty ? (output as NSString).lastPathComponent : record.item
            entries.append(Entry(item: item, output: output,
                                 key: "\(item)|\(record.persistentID ?? "-")|\(output)|\(record.bytes ?? -1)",
                                 properties: record.properties))
        }
        return entries.sorted { Array($0.item.utf8).lexicographicallyPrecedes(Array($1.item.utf8)) }
    }

    /// The sheets: (folder, page, items).
    static func groups(_ entries: [Entry], per: ContactSheetStage.Grouping) -> [(folder: String, page: Int, items: ArraySlice<Entry>)] {
        func paged(_ folder: String, _ items: ArraySlice<Entry>, size: Int) -> [(folder: String, page: Int, items: ArraySlice<Entry>)] {
            stride(from: items.startIndex, to: items.endIndex, by: size).enumerated().map { page, start in
                (folder, page + 1, items[start..<min(start + size, items.endIndex)])
            }
        }
        switch per {
        case .job: return paged("", entries[...], size: ContactSheetStage.pageLimit)
        case .items(let size): return paged("", entries[...], size: size)
        case .folder:
            var result: [(folder: String, page: Int, items: ArraySlice<Entry>)] = []
            var start = 0
            while start < entries.count {
                let folder = (entries[start].item as NSString).deletingLastPathComponent
                var end = start + 1
                while end < entries.count, (entries[end].item as NSString).deletingLastPathComponent == folder { end += 1 }
                result += paged(folder, entries[start..<end], size: ContactSheetStage.pageLimit)
                start = end
            }
            return result
        }
    }

    /// The sheet's path below the export root.
    static func name(_ stage: ContactSheetStage, job: String, folder: String, page: Int) -> String {
        let text = stage.name.replacingOccurrences(of: "{job}", with: ManifestWriter.fileSafe(job))
            .replacingOccurrences(of: "{folder}", with: folder)
            .replacingOccurrences(of: "{page}", with: String(page))
        let parts = text.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." && $0 != ".." }
        return parts.joined(separator: "/") + "." + stage.format.fileExtension
    }

    /// Writes every sheet of the job; one sheet's failure is reported and the others are still made.
    static func write(_ stage: ContactSheetStage, job: String, manifestLines: [String], root: ExportRoot,
                      say: (String) -> Void) -> Summary {
        var summary = Summary()
        let recordsName = recordsName(job: job)
        var previous: [String: String] = [:]
        if let text = try? String(contentsOfFile: root.path + "/" + ExportRoot.folderName + "/" + recordsName, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let sheet = object["sheet"] as? String, let key = object["key"] as? String else { continue }
                previous[sheet] = key
            }
        }
        var records: [String] = []
        for group in groups(entries(fromManifestLines: manifestLines), per: stage.per) {
            let relative = name(stage, job: job, folder: group.folder, page: group.page)
            let key = ContentHash.hex(ContentHash.of(text: stage.signature + "\n" + group.items.map(\.key).joined(separator: "\n")))
            var record: [String: Any] = ["job": job, "sheet": root.path + "/" + relative, "key": key,
                                         "items": group.items.map(\.item)]
            if previous[root.path + "/" + relative] == key, FileManager.default.fileExists(atPath: root.path + "/" + relative) {
                record["status"] = "unchanged"
                summary.unchanged += 1
            } else {
                do {
                    let made = try render(stage, group.items, to: relative, root: root)
                    record["status"] = "written"
                    record["bytes"] = made.bytes
                    if !made.failed.isEmpty { record["failed"] = made.failed.map { ["item": $0.0, "error": $0.1] } }
                    if !made.warnings.isEmpty { record["warnings"] = made.warnings }
                    summary.written += 1
                    summary.failedItems += made.failed.count
                    for (item, reason) in made.failed { say("contact sheet \(relative): \(item) left as an empty cell: \(reason)") }
                    for warning in made.warnings { say("contact sheet \(relative): warning: \(warning)") }
                } catch {
                    record["status"] = "failed"
                    record["error"] = "\(error)"
                    record["key"] = nil
                    summary.failedSheets += 1
                    say("contact sheet \(relative): cannot be written: \(error)")
                }
            }
            if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]),
               let line = String(data: data, encoding: .utf8) {
                records.append(line)
            }
        }
        do {
            try root.writeOwnFile(recordsName, Array((records.joined(separator: "\n") + "\n").utf8))
        } catch {
            say("contact sheets: cannot write their record \(recordsName): \(error)")
            summary.failedSheets += 1
        }
        return summary
    }

    /// Where a thumbnail of w × h goes in its box (centred as `montage` centres it: the odd pixel
    /// of a margin goes before the picture).
    static func offset(box: Int, size: Int) -> Int { (box - size + 1) / 2 }

    /// One sheet: each item's output shrunk on load into its cell (the cells made on every core,
    /// each holding only its thumbnail), labelled, joined in item order, saved into a temporary and
    /// renamed into place.
    static func render(_ stage: ContactSheetStage, _ items: ArraySlice<Entry>, to relative: String, root: ExportRoot) throws
        -> (bytes: Int64, failed: [(String, String)], warnings: [String]) {
        let text = stage.label.map { TextImage(template: $0, font: "DejaVu Sans", pixelSize: Double(stage.labelSize),
                                                 color: SIMD4(stage.labelColour[0] / 255, stage.labelColour[1] / 255, stage.labelColour[2] / 255, 1)) }
        let entries = Array(items)
        let made = parallelMap(count: entries.count) { index in cell(stage, entries[index], text: text) }
        var cells: [VipsImage] = []
        var failed: [(String, String)] = []
        var warnings: [String] = []
        for outcome in made {
            if let reason = outcome.failed { failed.append(reason) }
            warnings += outcome.warnings
            cells.append(try outcome.cell.get())
        }
        let sheet = try VipsImage.sheet(cells: cells, across: stage.columns, background: stage.background)
        let temporary = try AtomicFile(in: root, suffix: "-sheet." + stage.format.fileExtension, open: false)
        do {
            try sheet.save(to: temporary.path, format: stage.format, quality: stage.quality, strip: true)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? Int64) ?? nil
            let components = relative.split(separator: "/").map(String.init)
            try temporary.commit(in: root.folder(components.dropLast().joined(separator: "/")), as: components.last ?? relative)
            return (bytes ?? 0, failed, warnings)
        } catch {
            temporary.discard()
            throw error
        }
    }

    /// One item's cell: its thumbnail centred in the box (an empty box when its output cannot be
    /// decoded: `failed`), its label under it.
    static func cell(_ stage: ContactSheetStage, _ entry: Entry, text: TextImage?)
        -> (cell: Result<VipsImage, Error>, failed: (String, String)?, warnings: [String]) {
        var thumbnail: VipsImage?
        var failed: (String, String)?
        var warnings: [String] = []
        do {
            let image = try VipsImage.thumbnail(entry.output, width: stage.cellWidth, height: stage.cellHeight, crop: .none, force: false)
            thumbnail = try image.flattened(onto: (stage.background[0], stage.background[1], stage.background[2])).copiedToMemory()
        } catch {
            failed = (entry.item, "\(error)")
        }
        let cell = Result<VipsImage, Error> {
            var label: VipsImage?
            if let text {
                label = try drawLabel(text, entry, warnings: &warnings, failedToDecode: thumbnail == nil)
                if let drawn = label, drawn.width > stage.tileWidth {
                    label = try drawn.cropped(left: 0, top: 0, width: stage.tileWidth, height: min(drawn.height, stage.labelBand))
                } else if let drawn = label, drawn.height > stage.labelBand {
                    label = try drawn.cropped(left: 0, top: 0, width: drawn.width, height: stage.labelBand)
                }
            }
            let x = stage.gap + offset(box: stage.cellWidth, size: thumbnail?.width ?? 0)
            let y = stage.gap + offset(box: stage.cellHeight, size: thumbnail?.height ?? 0)
            let labelX = offset(box: stage.tileWidth, size: label?.width ?? 0)
            let labelY = stage.gap + stage.cellHeight + 1
            return try VipsImage.sheetCell(thumbnail: thumbnail, label: label, width: stage.tileWidth, height: stage.tileHeight,
                                           x: x, y: y, labelX: labelX, labelY: labelY, background: stage.background)
        }
        return (cell, failed, warnings)
    }

    /// The item's label; a template naming a property the item lacks draws "?" and warns.
    static func drawLabel(_ text: TextImage, _ entry: Entry, warnings: inout [String], failedToDecode: Bool) throws -> VipsImage? {
        let stem = ((entry.item as NSString).lastPathComponent as NSString).deletingPathExtension
        let property: (String) -> TemplateValue? = { name in
            switch name {
            case "stem": return .text(stem)
            case "filename": return .text((entry.item as NSString).lastPathComponent)
            default: return entry.properties.first { $0.name == name }?.value
            }
        }
        do {
            return try text.draw(property).image
        } catch {
            warnings.append("\(entry.item): label: \(error); drawn as '\(stem) ?'")
            let fallback = TextImage(template: text.template, font: text.font, pixelSize: text.pixelSize, color: text.color)
            return try? VipsImage.text(markup: TextImage.markup(stem + " ?"), font: fallback.font, pixelSize: Int(text.pixelSize), rgba: text.color)
        }
    }
}
