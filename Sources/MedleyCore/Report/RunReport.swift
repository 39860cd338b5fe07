import Foundation
import MedleyFilters
import MedleyMedia

/// A self-contained HTML page about one job's run, usable at 100,000 items and more: the summary
/// with charts drawn here as SVG, failures grouped by reason, and the item list (before/after
/// thumbnails for images, a waveform and meters for audio, properties, warnings, links to the
/// outputs) as JSON data that the page's one script shows 50 cards at a time, with search and
/// filters. Everything it shows is in its folder or linked relative to it: no CDN, no fonts, no
/// scripts from elsewhere, and a Content-Security-Policy that allows only that script (by its
/// SHA-256) and forbids the page any request off the machine.
enum RunReport {
    struct Item {
        var record: ManifestRecord
        var item: String { record.item }
        var input: String { record.input }
        var status: ManifestRecord.Status { record.status }
        var output: String? { record.output }
        var mediaType: MediaType? { record.mediaType }
        var properties: [(String, String)] {
            record.properties.map { ($0.name, RunReport.text(of: $0.value)) }.sorted { $0.0 < $1.0 }
        }
        /// Before/after pictures and the waveform, relative to the report folder.
        var before: String?
        var after: String?
        var waveform: String?
        var meter: (peak: [Double], average: [Double])?
    }

    /// Writes `index.html` (and the pictures it needs that are not there yet) for a job from its
    /// manifest. Returns the page's path.
    static func write(job: String, root: ExportRoot, manifestPath: String, stage: ReportStage,
                      summary: JobSummaryFile?) throws -> String {
        let folder = stage.folder ?? root.path + "/.medley/report-" + ManifestWriter.fileSafe(job)
        // Every folder on the way a real one (no link under the export root is followed); the
        // pictures are then made in it by its path without links.
        let relative = folder == root.path ? "" : try root.relative(folder)
        let thumbs: SafeFolder
        do {
            thumbs = try root.folder(relative.isEmpty ? "thumbs" : relative + "/thumbs")
        } catch let failure as FileSystemFailure {
            throw RunError.cannotWrite(path: folder, reason: "\(failure)")
        }
        let text = try String(contentsOfFile: manifestPath, encoding: .utf8)
        // Decoded on every core (JSON decoding is most of the time for 100,000 lines).
        let lines = text.split(separator: "\n")
        var items: [Item] = parallelMap(count: lines.count) { index in
            (try? ManifestRecord(line: String(lines[index]))).map { Item(record: $0) }
        }.compactMap { $0 }
        // Each sort key made once (100,000 items).
        items = items.map { (key: Array($0.item.utf8), item: $0) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.item)
        try Vips.start()
        let pictures = parallelMap(count: items.count) { index in
            makePictures(for: items[index], thumbs: thumbs, root: root, size: stage.thumbnailSize)
        }
        for (index, made) in pictures.enumerated() {
            items[index].before = made.before
            items[index].after = made.after
            items[index].waveform = made.waveform
            items[index].meter = made.meter
        }
        let html = page(job: job, items: items, summary: summary, folder: folder)
        let destination = folder + "/index.html"
        do {
            try root.writeFile(relative.isEmpty ? "index.html" : relative + "/index.html", Array(html.utf8))
        } catch let failure as FileSystemFailure {
            throw RunError.cannotWrite(path: destination, reason: failure.reason)
        }
        return destination
    }

    typealias Made = (before: String?, after: String?, waveform: String?, meter: (peak: [Double], average: [Double])?)

    /// Thumbnails of an image's input and output, or the waveform of an audio item's output.
    /// Files are named by what they show (content hash of the input, size and time of the
    /// output), so a report of an unchanged re-run reuses them.
    static func makePictures(for item: Item, thumbs: SafeFolder, root: ExportRoot, size: Int) -> Made {
        guard item.status == .succeeded || item.status == .skipped, let output = item.output,
              FileManager.default.fileExists(atPath: output) else { return (nil, nil, nil, nil) }
        let id = item.record.persistentID ?? ContentHash.hex(ContentHash.of(text: item.input))
        let outputKey = ContentHash.hex(ContentHash.of(text: output + "|" + fileStamp(output)))
        let outputExt = (output as NSString).pathExtension.lowercased()
        if item.mediaType == .image || imageExtensions.contains(outputExt) {
            // Images: before and after. A movie's poster: the frame as exported (no "before" picture).
            let before = "\(id)-in.jpg", after = "\(outputKey)-out.jpg"
            let madeBefore = item.mediaType == .image
                // A source moved aside (`ingest.afterwards.move`) is read where it went, its hash checked as ever.
                && inputThumbnail(item.record.movedTo ?? item.input, persistentID: item.record.persistentID,
                                  named: before, in: thumbs, root: root, size: size)
            let madeAfter = thumbnail(output, named: after, in: thumbs, root: root, size: size)
            return (madeBefore ? "thumbs/" + before : nil, madeAfter ? "thumbs/" + after : nil, nil, nil)
        }
        guard item.mediaType != .movie else { return (nil, nil, nil, nil) }
        let name = "\(outputKey)-wave.svg"
        guard let reader = try? AudioStage.open(output, format: (output as NSString).pathExtension.lowercased()),
              let wave = try? reader.waveform(columns: 480) else { return (nil, nil, nil, nil) }
        let channels = 0..<wave.meter.peak.count
        let meter = (channels.map { ManifestRecord.decibels(wave.meter.peakPower(channel: $0)) },
                     channels.map { ManifestRecord.decibels(wave.meter.averagePower(channel: $0)) })
        let svg = waveformSVG(wave, width: 480, height: 64)
        if thumbs.kind(of: name) != S_IFREG {
            guard (try? root.writeFile(in: thumbs, as: name, Array(svg.utf8))) != nil else { return (nil, nil, nil, meter) }
        }
        return (nil, nil, "thumbs/" + name, meter)
    }

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "gif", "avif"]

    static func fileStamp(_ path: String) -> String {
        guard case .success(let info) = FileSystem.status(of: path) else { return "" }
        return "\(info.size)-\(info.modifiedTime.seconds)-\(info.modifiedTime.nanoseconds)"
    }

    /// The "before" picture, only of the bytes the item was made from: the input is opened once, the content
    /// hash of that open file must be the recorded persistentID, and libvips reads the same open file. An input
    /// replaced since the run (new content, or a symbolic link to a file elsewhere) gets no picture.
    static func inputThumbnail(_ input: String, persistentID: String?, named name: String, in thumbs: SafeFolder,
                               root: ExportRoot, size: Int) -> Bool {
        if thumbs.kind(of: name) == S_IFREG { return true }
        guard let persistentID else { return false }
        guard case .success(let descriptor) = FileSystem.openForReading(input) else { return false }
        defer { FileSystem.close(descriptor) }
        guard case .success(let status) = FileSystem.status(ofDescriptor: descriptor), status.kind == .file,
              let hash = try? ContentHash.of(descriptor: descriptor), ContentHash.hex(hash) == persistentID else { return false }
        return thumbnail("/proc/self/fd/\(descriptor)", named: name, in: thumbs, root: root, size: size)
    }

    /// A JPEG thumbnail `name` in `thumbs` by Medley's own resize (libvips' shrink-on-load),
    /// unless it exists; made as a temporary file of this process and renamed into place.
    static func thumbnail(_ source: String, named name: String, in thumbs: SafeFolder, root: ExportRoot, size: Int) -> Bool {
        if thumbs.kind(of: name) == S_IFREG { return true }
        guard let temporary = try? AtomicFile(in: root, suffix: ".jpg") else { return false }
        do {
            let image = try VipsImage.thumbnail(source, width: size, height: size, crop: .none, force: false)
            try image.flattened().save(to: temporary.path, format: .jpeg, quality: 75, strip: true)
            try temporary.commit(in: thumbs, as: name)
            return true
        } catch {
            temporary.discard()
            return false
        }
    }

    /// Columns as vertical strokes from the column's lowest to its highest sample.
    static func waveformSVG(_ wave: Waveform, width: Int, height: Int) -> String {
        let middle = Double(height) / 2
        var path = ""
        for (x, (low, high)) in zip(wave.minimum, wave.maximum).enumerated() {
            let top = middle - Double(max(-1, min(1, high))) * middle
            let bottom = middle - Double(max(-1, min(1, low))) * middle
            path += String(format: "M%d.5 %.1fV%.1f", x, top, max(bottom, top + 0.5))
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\
            <rect width="100%" height="100%" fill="#f4f4f4"/><path d="M0 \(middle)H\(width)" stroke="#ccc"/>\
            <path d="\(path)" stroke="#2a6f97" stroke-width="1"/></svg>
            """
    }

    // MARK: the page

    /// The page: the summary with its charts, failures grouped by reason, and the item list as
    /// JSON data shown 50 cards at a time by the page's one script (search, filters, pages; the
    /// view in the URL's fragment). Built as pieces joined once, so 100,000 items cost linear time.
    static func page(job: String, items: [Item], summary: JobSummaryFile?, folder: String) -> String {
        var counts: [ManifestRecord.Status: Int] = [:]
        for item in items { counts[item.status, default: 0] += 1 }
        let count = { (status: ManifestRecord.Status) in counts[status] ?? 0 }
        let script = ReportAssets.script
        var pieces: [String] = []
        pieces.reserveCapacity(64)
        pieces.append("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'sha256-\(SHA256.base64(Array(script.utf8)))'">
            <title>Medley — \(escape(job))</title>
            <style>\(ReportAssets.style)</style></head><body>
            <header><h1>\(escape(job))</h1><table class="summary">
            """)
        var rows: [(String, String)] = [
            ("items", String(items.count)), ("succeeded", String(count(.succeeded))),
            ("skipped (unchanged)", String(count(.skipped))), ("failed", String(count(.failed))),
            ("excluded", String(count(.excluded))), ("ignored", String(count(.ignored))),
        ]
        if let summary {
            let done = summary.succeeded + summary.failed + summary.skipped
            rows.append(("wall time", String(format: "%.2f s", summary.seconds)))
            rows.append(("throughput", String(format: "%.1f items/s", summary.seconds > 0 ? Double(done) / summary.seconds : 0)))
            rows.append(("written", ByteCountFormatter.string(fromByteCount: summary.bytesWritten, countStyle: .file)))
            rows.append(("started", summary.started))
            if let shard = summary.shard { rows.append(("shard", shard)) }
        }
        for (name, value) in rows {
            pieces.append("<tr><th>\(escape(name))</th><td data-count=\"\(escape(name))\">\(escape(value))</td></tr>")
        }
        pieces.append("</table></header>\n")
        // The charts over time are of the last run: an item unchanged since an earlier one keeps the
        // time its output was made, which would stretch the axis back over days.
        let since = summary.flatMap { ISO8601DateFormatter().date(from: $0.started) }.map { $0.timeIntervalSince1970.rounded(.down) }
        pieces.append(charts(items: items, counts: count, since: since))
        pieces.append(failureSection(items: items))
        pieces.append(listSection(items: items))
        pieces.append("<script type=\"application/json\" id=\"item-data\">")
        pieces.append(itemData(items: items, folder: folder))
        pieces.append("</script>\n")
        pieces.append("<footer>Made by Medley \(escape(medleyVersion)). Works offline: every picture is in thumbs/.</footer>\n")
        pieces.append("<script>\(script)</script></body></html>\n")
        return pieces.joined()
    }

    static let statusColors: [ManifestRecord.Status: String] = [
        .succeeded: "#2a9d55", .skipped: "#7a9cc6", .failed: "#c0392b", .excluded: "#b8a040", .ignored: "#999999",
    ]

    /// The summary charts. Items without a `finished` time (manifests of older Medleys), and with
    /// `since` (the last run's start, seconds since 1970) those finished before it — unchanged since
    /// an earlier run — are in the counts but not in the charts over time, which say how many they leave out.
    static func charts(items: [Item], counts: (ManifestRecord.Status) -> Int, since: Double? = nil) -> String {
        var pieces = ["<section id=\"charts\"><h2>Summary</h2><div class=\"charts\">"]
        var earlier = 0
        let events = items.compactMap { item -> (seconds: Double, bytes: Int64)? in
            guard let finished = item.record.finished, let seconds = ManifestRecord.seconds(ofTimestamp: finished) else { return nil }
            if let since, seconds < since {
                earlier += 1
                return nil
            }
            return (seconds, item.status == .succeeded ? item.record.bytes ?? 0 : 0)
        }
        if let timeline = ReportCharts.timeline(events) {
            let cumulative = timeline.cumulativeCounts, written = timeline.cumulativeBytes
            pieces.append(ReportCharts.lineChart(id: "items", title: "Items finished over time", yLabel: "items (cumulative)",
                                                 timeline: timeline, values: cumulative.map(Double.init),
                                                 format: { String(Int($0.rounded())) }, total: String(cumulative.last ?? 0)))
            pieces.append(ReportCharts.lineChart(id: "bytes", title: "Bytes written over time", yLabel: "bytes (cumulative)",
                                                 timeline: timeline, values: written.map(Double.init),
                                                 format: ReportCharts.bytes, total: String(written.last ?? 0)))
            let peak = timeline.throughput.max() ?? 0
            pieces.append(ReportCharts.lineChart(id: "throughput",
                                                 title: String(format: "Throughput (per %.1f s)", timeline.bucketSeconds),
                                                 yLabel: "items/s", timeline: timeline, values: timeline.throughput,
                                                 format: { String(format: "%.1f", $0) }, total: String(format: "%.2f", peak)))
        }
        if case let untimed = items.count - events.count - earlier, untimed > 0 {
            pieces.append("<p class=\"note\" id=\"untimed\" data-count=\"\(untimed)\">\(untimed) "
                          + "item(s) have no finished time (a manifest from before Medley recorded it) and are not in the charts over time.</p>")
        }
        if earlier > 0 {
            pieces.append("<p class=\"note\" id=\"earlier\" data-count=\"\(earlier)\">\(earlier) item(s) finished in an earlier run "
                          + "(unchanged since) and are not in the charts over time, which show the last run.</p>")
        }
        let statuses: [ManifestRecord.Status] = [.succeeded, .skipped, .failed, .excluded, .ignored]
        pieces.append(ReportCharts.barChart(id: "outcomes", title: "Outcomes", yLabel: "items",
                                            bars: statuses.map { ($0.rawValue, Double(counts($0)), statusColors[$0] ?? "#888") },
                                            format: { String(Int($0.rounded())) }, total: String(items.count)))
        // Sizes before/after: the input's `size` property (the bytes read) and the output's bytes,
        // of items that have both, by media type.
        var before: [String: Int64] = [:], after: [String: Int64] = [:]
        var measured = 0
        for item in items where item.status == .succeeded {
            guard let output = item.record.bytes, let input = item.record[property: "size"]?.integerValue else { continue }
            let type = item.mediaType?.rawValue ?? "other"
            before[type] = ReportCharts.sum(before[type] ?? 0, Int64(input))
            after[type] = ReportCharts.sum(after[type] ?? 0, output)
            measured += 1
        }
        let types = before.keys.sorted()
        let bars = types.flatMap { type in
            [("\(type) in", Double(before[type] ?? 0), "#9bb7d4"), ("\(type) out", Double(after[type] ?? 0), "#2a6f97")]
        }
        pieces.append(ReportCharts.barChart(id: "sizes", title: "Sizes before/after", yLabel: "bytes", bars: bars,
                                            format: ReportCharts.bytes, total: String(measured),
                                            caption: "Input bytes (the item's size property) and output bytes, by media type, "
                                                + "of the \(measured) succeeded items that have both."))
        pieces.append("</div></section>\n")
        return pieces.joined()
    }

    /// Items listed under each reason's group, at most.
    static let listedPerGroup = 100

    /// Failures grouped by the shape of their reason, largest group first; each group opens to its items.
    static func failureSection(items: [Item]) -> String {
        let failed = items.indices.filter { items[$0].status == .failed }
        var pieces = ["<section id=\"failures\"><h2>Failures (\(failed.count))</h2>"]
        if failed.isEmpty { pieces.append("<p>None.</p>") }
        let groups = FailureGroups.group(failed.map { index in
            let record = items[index].record
            return (index, record.error ?? "unknown", [record.input, record.output ?? "", record.movedTo ?? ""])
        })
        for group in groups {
            pieces.append("<details class=\"failure-group\" data-count=\"\(group.members.count)\" data-shape=\"\(escape(group.shape))\">"
                          + "<summary><span class=\"count\">\(group.members.count)</span> <span class=\"shape\">\(escape(group.shape))</span>"
                          + "</summary><ul>")
            for index in group.members.prefix(listedPerGroup) {
                let item = items[index]
                pieces.append("<li class=\"failure\" data-item=\"\(escape(item.item))\"><code>\(escape(item.item.isEmpty ? item.input : item.item))</code>: "
                              + "<span class=\"reason\">\(escape(item.record.error ?? "unknown"))</span></li>")
            }
            pieces.append("</ul>")
            if group.members.count > listedPerGroup {
                pieces.append("<p class=\"more\">and \(group.members.count - listedPerGroup) more (filter the item list by status “failed”).</p>")
            }
            pieces.append("</details>")
        }
        pieces.append("</section>\n")
        return pieces.joined()
    }

    /// The item list's controls and its empty sheet (the script fills it).
    static func listSection(items: [Item]) -> String {
        let statuses: [ManifestRecord.Status] = [.succeeded, .skipped, .failed, .excluded, .ignored]
        var statusOptions = "<option value=\"\">every status</option>"
        for status in statuses {
            statusOptions += "<option value=\"\(status.rawValue)\">\(status.rawValue)</option>"
        }
        let present = Set(items.map { $0.mediaType?.rawValue ?? "none" })
        var typeOptions = "<option value=\"\">every media type</option>"
        if !present.isDisjoint(with: ["music", "podcast", "audioBook"]) { typeOptions += "<option value=\"audio\">audio (any)</option>" }
        for type in MediaType.allCases.map(\.rawValue) + ["none"] where present.contains(type) {
            typeOptions += "<option value=\"\(type)\">\(type == "none" ? "no media type" : type)</option>"
        }
        return """
            <section id="items"><h2>Items (\(items.count))</h2>
            <form class="controls" id="controls"><input type="search" id="search" placeholder="search item or input path" \
            aria-label="search"> <select id="status" aria-label="status">\(statusOptions)</select> \
            <select id="type" aria-label="media type">\(typeOptions)</select> <span id="shown"></span></form>
            <nav class="pager" id="pager-top"></nav><div class="sheet" id="sheet"></div><nav class="pager" id="pager"></nav>
            <noscript><p>The item list needs JavaScript (the page's own script, nothing from elsewhere).</p></noscript></section>

            """
    }

    /// One JSON object per item, as the script reads them (short keys: 100,000 items make a big page).
    /// `<` is written as \\u003c, so no `</script>` in a name can end the data block.
    static func itemData(items: [Item], folder: String) -> String {
        var pieces: [String] = ["["]
        pieces.reserveCapacity(items.count * 2 + 2)
        let base = (folder as NSString).standardizingPath.split(separator: "/", omittingEmptySubsequences: true)
        for (index, item) in items.enumerated() {
            var fields: [(String, String)] = [("i", json(item.item)), ("n", json(item.input)), ("s", json(item.status.rawValue))]
            if let type = item.mediaType { fields.append(("t", json(type.rawValue))) }
            if item.status == .succeeded || item.status == .skipped {
                if let before = item.before { fields.append(("b", json(urlPath(before)))) }
                if let after = item.after { fields.append(("a", json(urlPath(after)))) }
                if let waveform = item.waveform { fields.append(("w", json(urlPath(waveform)))) }
            }
            if let meter = item.meter {
                let rows = meter.peak.indices.map { channel in
                    "[" + [String(channel + 1), format(meter.peak[channel]),
                           meter.average.indices.contains(channel) ? format(meter.average[channel]) : ""].map(json).joined(separator: ",") + "]"
                }
                fields.append(("m", "[" + rows.joined(separator: ",") + "]"))
            }
            if let loudness = item.record.loudness {
                func cell(_ value: Double?, _ unit: String) -> String { value.map { String(format: "%.2f ", $0) + unit } ?? "silent" }
                let cells = [cell(loudness.integrated, "LUFS"), cell(loudness.range, "LU"), cell(loudness.samplePeak, "dBFS"),
                             cell(loudness.truePeak, "dBTP")]
                fields.append(("l", "[" + cells.map(json).joined(separator: ",") + "]"))
            }
            if let output = item.output {
                fields.append(("o", json(urlPath(relativeLink(to: output, from: base)))))
                fields.append(("on", json((output as NSString).lastPathComponent)))
            }
            if let movedTo = item.record.movedTo { fields.append(("mv", json(movedTo))) }
            if let error = item.record.error, item.status != .succeeded { fields.append(("r", json(error))) }
            if !item.record.warnings.isEmpty { fields.append(("wa", "[" + item.record.warnings.map(json).joined(separator: ",") + "]")) }
            let properties = item.properties
            if !properties.isEmpty {
                fields.append(("p", "[" + properties.map { "[" + json($0.0) + "," + json($0.1) + "]" }.joined(separator: ",") + "]"))
            }
            pieces.append((index == 0 ? "" : ",\n") + "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        }
        pieces.append("]")
        return pieces.joined()
    }

    /// A JSON string literal safe inside `<script type="application/json">`: JSON's own escapes, and
    /// `<`, `>`, `&`, U+2028/U+2029 as \u escapes, so no text can end the block.
    static func json(_ text: String) -> String {
        JSONValue.quote(text, alsoEscaping: { "<>&\u{2028}\u{2029}".unicodeScalars.contains($0) })
    }

    static func format(_ value: Double) -> String { value <= -160 ? "−∞" : String(format: "%.2f", value) }

    /// A link from the report folder to a file: "../../Artist/Album/01 Song.m4a". `folder` is the
    /// report folder's components, standardized once (`standardizingPath` resolves links, a few
    /// system calls a path: too many for 100,000 outputs); an output's path, as Medley wrote it,
    /// is only made canonical in its text ("." and ".." components).
    static func relativeLink(to path: String, from folder: [Substring]) -> String {
        Playlist.relativePath(of: path, fromComponents: folder)
    }

    /// Each path component percent-encoded, so names with '#', '?', '%' or spaces still link.
    static func urlPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? "" }.joined(separator: "/")
    }

    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        return allowed
    }()

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// A property as the page shows it (a real number in its shortest spelling, as JSON had it).
    static func text(of value: TemplateValue) -> String {
        switch value {
        case .text(let text), .path(let text): return text
        case .integer(let n): return String(n)
        case .number(let n): return NSNumber(value: n).stringValue
        }
    }
}
