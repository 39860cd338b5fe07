import Foundation
import MedleyFilters
import MedleyMedia

/// A self-contained HTML page about one job's run: the summary, a contact sheet of before/after
/// thumbnails for images, a waveform and meters for audio, properties per item, failures with
/// their reasons, links to the outputs. Everything it shows is in its folder or linked relative
/// to it: no CDN, no fonts, no scripts from elsewhere, and a Content-Security-Policy that forbids
/// the page any request off the machine.
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
        var items: [Item] = text.split(separator: "\n").compactMap { line in
            (try? ManifestRecord(line: String(line))).map { Item(record: $0) }
        }
        items.sort { Array($0.item.utf8).lexicographicallyPrecedes(Array($1.item.utf8)) }
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
        var info = stat()
        guard stat(path, &info) == 0 else { return "" }
        return "\(info.st_size)-\(info.st_mtim.tv_sec)-\(info.st_mtim.tv_nsec)"
    }

    /// The "before" picture, only of the bytes the item was made from: the input is opened once, the content
    /// hash of that open file must be the recorded persistentID, and libvips reads the same open file. An input
    /// replaced since the run (new content, or a symbolic link to a file elsewhere) gets no picture.
    static func inputThumbnail(_ input: String, persistentID: String?, named name: String, in thumbs: SafeFolder,
                               root: ExportRoot, size: Int) -> Bool {
        if thumbs.kind(of: name) == S_IFREG { return true }
        guard let persistentID else { return false }
        let descriptor = open(input, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              let hash = try? ContentHash.of(descriptor: descriptor), ContentHash.hex(hash) == persistentID else { return false }
        return thumbnail("/proc/self/fd/\(descriptor)", named: name, in: thumbs, root: root, size: size)
    }

    /// A JPEG thumbnail `name` in `thumbs` by Medley's own resize (libvips' shrink-on-load),
    /// unless it exists; made as a temporary file of this process and renamed into place.
    static func thumbnail(_ source: String, named name: String, in thumbs: SafeFolder, root: ExportRoot, size: Int) -> Bool {
        if thumbs.kind(of: name) == S_IFREG { return true }
        guard let temporary = try? AtomicFile(in: root, suffix: ".jpg") else { return false }
        do {
            let image = try VipsImage.thumbnail(source, width: size, height: size, crop: false, force: false)
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

    static func page(job: String, items: [Item], summary: JobSummaryFile?, folder: String) -> String {
        let count = { (status: ManifestRecord.Status) in items.filter { $0.status == status }.count }
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
            <title>Medley — \(escape(job))</title>
            <style>\(style)</style></head><body>
            <header><h1>\(escape(job))</h1><table class="summary">
            """
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
            html += "<tr><th>\(escape(name))</th><td data-count=\"\(escape(name))\">\(escape(value))</td></tr>"
        }
        html += "</table></header>\n"

        let failures = items.filter { $0.status == .failed }
        html += "<section id=\"failures\"><h2>Failures (\(failures.count))</h2>"
        if failures.isEmpty { html += "<p>None.</p>" }
        html += "<ul>"
        for item in failures {
            html += "<li class=\"failure\" data-item=\"\(escape(item.item))\"><code>\(escape(item.item.isEmpty ? item.input : item.item))</code>: "
                + "<span class=\"reason\">\(escape(item.record.error ?? "unknown"))</span></li>"
        }
        html += "</ul></section>\n<section id=\"items\"><h2>Items</h2><div class=\"sheet\">\n"
        for item in items where item.status == .succeeded || item.status == .skipped {
            html += card(item, folder: folder)
        }
        html += "</div></section>\n"
        let excluded = items.filter { $0.status == .excluded }
        if !excluded.isEmpty {
            html += "<section id=\"excluded\"><details><summary>Excluded by media type or where (\(excluded.count))</summary><ul>"
            for item in excluded {
                html += "<li data-item=\"\(escape(item.item))\"><code>\(escape(item.item))</code>: \(escape(item.record.error ?? ""))</li>"
            }
            html += "</ul></details></section>\n"
        }
        let ignored = items.filter { $0.status == .ignored }
        if !ignored.isEmpty {
            html += "<section id=\"ignored\"><details><summary>Ignored: not media of the job's types (\(ignored.count))</summary><ul>"
            for item in ignored {
                html += "<li data-item=\"\(escape(item.item))\"><code>\(escape(item.item))</code>: \(escape(item.record.error ?? ""))</li>"
            }
            html += "</ul></details></section>\n"
        }
        html += "<footer>Made by Medley \(escape(medleyVersion)). Works offline: every picture is in thumbs/.</footer>\n"
        html += "<script>\(script)</script></body></html>\n"
        return html
    }

    static func card(_ item: Item, folder: String) -> String {
        var html = "<article class=\"item \(escape(item.status.rawValue))\" data-item=\"\(escape(item.item))\" data-status=\"\(escape(item.status.rawValue))\">"
        html += "<h3 title=\"\(escape(item.input))\">\(escape(item.item))</h3><div class=\"pictures\">"
        if item.mediaType == .image || item.after != nil {
            let pictures = item.mediaType == .image ? [("before", item.before), ("after", item.after)] : [("poster", item.after)]
            for (label, picture) in pictures {
                if let picture {
                    html += "<figure><img loading=\"lazy\" src=\"\(escape(urlPath(picture)))\" alt=\"\(label)\"><figcaption>\(label)</figcaption></figure>"
                } else {
                    html += "<figure class=\"missing\"><figcaption>\(label): no picture</figcaption></figure>"
                }
            }
        } else if let waveform = item.waveform {
            html += "<figure class=\"wave\"><img loading=\"lazy\" src=\"\(escape(urlPath(waveform)))\" width=\"480\" height=\"64\" alt=\"waveform\"></figure>"
        }
        html += "</div>"
        if let meter = item.meter {
            html += "<table class=\"meters\"><tr><th>channel</th><th>peak dBFS</th><th>average dBFS</th></tr>"
            for channel in meter.peak.indices {
                html += "<tr><td>\(channel + 1)</td><td>\(format(meter.peak[channel]))</td><td>\(format(meter.average[channel]))</td></tr>"
            }
            html += "</table>"
        }
        if let loudness = item.record.loudness { html += loudnessTable(loudness) }
        if let output = item.output {
            html += "<p><a class=\"output\" href=\"\(escape(urlPath(relativeLink(to: output, from: folder))))\">\(escape((output as NSString).lastPathComponent))</a>"
            if item.status == .skipped { html += " <span class=\"note\">unchanged since the last run</span>" }
            html += "</p>"
            if let movedTo = item.record.movedTo { html += "<p class=\"note\">source moved to \(escape(movedTo))</p>" }
        }
        if case let warnings = item.record.warnings, !warnings.isEmpty {
            html += "<p class=\"warning\">" + warnings.map(escape).joined(separator: "<br>") + "</p>"
        }
        html += "<details><summary>properties</summary><table class=\"properties\">"
        for (name, value) in item.properties {
            html += "<tr><th>\(escape(name))</th><td>\(escape(value))</td></tr>"
        }
        html += "</table></details></article>\n"
        return html
    }

    /// `analyze: [loudness]`: the output's EBU R128 values as the manifest has them; a silent
    /// output has no integrated loudness or peaks ("silent").
    static func loudnessTable(_ loudness: LoudnessRecord) -> String {
        func cell(_ value: Double?, _ unit: String) -> String { value.map { String(format: "%.2f ", $0) + unit } ?? "silent" }
        let rows = [("integrated", "integrated", cell(loudness.integrated, "LUFS")), ("range", "loudness range", cell(loudness.range, "LU")),
                    ("samplePeak", "sample peak", cell(loudness.samplePeak, "dBFS")), ("truePeak", "true peak", cell(loudness.truePeak, "dBTP"))]
        var html = "<table class=\"loudness\"><tr><th colspan=\"2\">loudness (EBU R128)</th></tr>"
        for (key, label, value) in rows {
            html += "<tr><th>\(label)</th><td data-loudness=\"\(key)\">\(escape(value))</td></tr>"
        }
        return html + "</table>"
    }

    static func format(_ value: Double) -> String { value <= -160 ? "−∞" : String(format: "%.2f", value) }

    /// A link from the report folder to a file: "../../Artist/Album/01 Song.m4a".
    static func relativeLink(to path: String, from folder: String) -> String {
        Playlist.relativePath(of: path, from: folder)
    }

    /// Each path component percent-encoded, so names with '#', '?', '%' or spaces still link.
    static func urlPath(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }.joined(separator: "/")
    }

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// A property as the page shows it (a real number in its shortest spelling, as JSON had it).
    static func text(of value: TemplateValue) -> String {
        switch value {
        case .text(let text), .path(let text): return text
        case .integer(let n): return String(n)
        case .number(let n): return NSNumber(value: n).stringValue
        }
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{margin:0 0 .3em}
        table.summary th{text-align:left;padding-right:1em;font-weight:normal;color:#555}
        .sheet{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:12px}
        article.item{border:1px solid #ddd;border-radius:6px;padding:8px;background:#fff}
        article.item h3{font-size:13px;margin:0 0 6px;word-break:break-all}
        .pictures{display:flex;gap:8px}figure{margin:0;text-align:center}
        figure img{max-width:160px;max-height:160px;display:block}figure.wave img{max-width:100%;height:auto}
        figcaption{font-size:11px;color:#666}figure.missing{width:160px;height:60px;background:#f3f3f3}
        .failure .reason{color:#a00}.warning{color:#8a5a00;font-size:12px}.note{color:#666;font-size:12px}
        table.meters,table.properties,table.loudness{font-size:12px;border-collapse:collapse}
        table.meters td,table.meters th,table.properties td,table.properties th,table.loudness td,table.loudness th{padding:1px 6px;text-align:left}
        img.broken{outline:2px solid #a00}footer{margin-top:2em;color:#888;font-size:12px}
        """

    /// Marks each picture once it loads (or fails), so a reader of the page, or a test, sees which
    /// thumbnails are missing; nothing is fetched.
    static let script = """
        for (const img of document.images) {
          const mark = () => { img.dataset.naturalWidth = img.naturalWidth; if (!img.naturalWidth) img.classList.add('broken'); };
          if (img.complete) mark(); else { img.addEventListener('load', mark); img.addEventListener('error', mark); }
        }
        """
}
