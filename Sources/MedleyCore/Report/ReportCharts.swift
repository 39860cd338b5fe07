import Foundation

/// The report's summary charts, drawn by Medley as inline SVG (no script is needed to see them):
/// items and bytes over time, throughput, outcome counts and sizes before/after. Each chart has a
/// title, axis labels with units, a `<title>` and `data-` attributes carrying its numbers.
enum ReportCharts {
    /// Items finished per equal slice of the run's time, from the manifest's `finished` times.
    struct Timeline: Equatable {
        /// Seconds since 1970 of the first item finished.
        var start: Double
        /// Width of one bucket in seconds (the whole span / the bucket count; 1 s when all items finished at once).
        var bucketSeconds: Double
        /// Items finished in each bucket.
        var counts: [Int]
        /// Output bytes written by the items finished in each bucket.
        var bytes: [Int64]

        /// Items (or bytes) finished by the end of each bucket.
        var cumulativeCounts: [Int] { counts.reduce(into: []) { $0.append(($0.last ?? 0) + $1) } }
        var cumulativeBytes: [Int64] { bytes.reduce(into: []) { $0.append(ReportCharts.sum($0.last ?? 0, $1)) } }
        /// Items per second in each bucket.
        var throughput: [Double] { counts.map { Double($0) / bucketSeconds } }
    }

    /// The timeline of `events` (seconds since 1970, bytes written) in `buckets` equal buckets from
    /// the first to the last; the last item falls in the last bucket. Nil without events.
    static func timeline(_ events: [(seconds: Double, bytes: Int64)], buckets: Int = 60) -> Timeline? {
        let times = events.map(\.seconds).filter(\.isFinite)
        guard let first = times.min(), let last = times.max(), buckets > 0 else { return nil }
        let span = last - first
        let count = span > 0 ? buckets : 1
        let width = span > 0 ? span / Double(buckets) : 1
        var timeline = Timeline(start: first, bucketSeconds: width, counts: Array(repeating: 0, count: count),
                                bytes: Array(repeating: 0, count: count))
        for event in events where event.seconds.isFinite {
            let position = (event.seconds - first) / width
            let index = position >= Double(count - 1) ? count - 1 : max(0, Int(position.rounded(.down)))
            timeline.counts[index] += 1
            timeline.bytes[index] = sum(timeline.bytes[index], event.bytes)
        }
        return timeline
    }

    /// `a + b` of byte counts, never below 0 and held at `Int64.max`: a manifest's `bytes` are read
    /// as written, and one edited to absurd values must not stop the report.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (total, overflow) = max(0, a).addingReportingOverflow(max(0, b))
        return overflow ? .max : total
    }

    // MARK: drawing

    static let width = 520.0, height = 220.0
    static let left = 70.0, right = 16.0, top = 30.0, bottom = 44.0

    /// A line (step) chart of `values`, one per bucket of `timeline`, from zero.
    static func lineChart(id: String, title: String, yLabel: String, timeline: Timeline, values: [Double],
                          format: (Double) -> String, total: String) -> String {
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let highest = max(values.max() ?? 0, 1e-9)
        var path = "M\(number(left)) \(number(top + plotHeight))"
        for (index, value) in values.enumerated() {
            let x0 = left + plotWidth * Double(index) / Double(values.count)
            let x1 = left + plotWidth * Double(index + 1) / Double(values.count)
            let y = top + plotHeight * (1 - value / highest)
            path += "L\(number(x0)) \(number(y))L\(number(x1)) \(number(y))"
        }
        let seconds = timeline.bucketSeconds * Double(values.count)
        let data = values.map { number($0) }.joined(separator: " ")
        return frame(id: id, title: title, total: total, data: data, summary: "\(title): \(total)",
                     caption: "From the first item finished, " + ManifestRecord.timestamp(Date(timeIntervalSince1970: timeline.start))
                        + String(format: ", in %d slices of %.1f s.", values.count, timeline.bucketSeconds)) {
            axes(yLabel: yLabel, xLabel: "time since the first item (s)", yHigh: format(highest),
                 xHigh: String(format: "%.1f", seconds))
                + "<path class=\"series\" d=\"\(path)\" fill=\"none\" stroke=\"#2a6f97\" stroke-width=\"1.5\"/>"
        }
    }

    /// Bars with labels under them; each bar's `data-value` is its number.
    static func barChart(id: String, title: String, yLabel: String, bars: [(label: String, value: Double, color: String)],
                         format: (Double) -> String, total: String, caption: String? = nil) -> String {
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let highest = max(bars.map(\.value).max() ?? 0, 1e-9)
        let slot = plotWidth / Double(max(bars.count, 1))
        var body = axes(yLabel: yLabel, xLabel: nil, yHigh: format(highest), xHigh: nil)
        for (index, bar) in bars.enumerated() {
            let barHeight = plotHeight * bar.value / highest
            let x = left + slot * Double(index) + slot * 0.15
            body += "<g class=\"bar\" data-label=\"\(HTMLText.escape(bar.label))\" data-value=\"\(number(bar.value))\">"
                + "<title>\(HTMLText.escape(bar.label)): \(HTMLText.escape(format(bar.value)))</title>"
                + "<rect x=\"\(number(x))\" y=\"\(number(top + plotHeight - barHeight))\" width=\"\(number(slot * 0.7))\" "
                + "height=\"\(number(barHeight))\" fill=\"\(bar.color)\"/>"
                + "<text x=\"\(number(x + slot * 0.35))\" y=\"\(number(top + plotHeight - barHeight - 3))\" text-anchor=\"middle\">"
                + "\(HTMLText.escape(format(bar.value)))</text>"
                + "<text x=\"\(number(x + slot * 0.35))\" y=\"\(number(top + plotHeight + 14))\" text-anchor=\"middle\">"
                + "\(HTMLText.escape(bar.label))</text></g>"
        }
        let data = bars.map { "\($0.label)=\(number($0.value))" }.joined(separator: " ")
        return frame(id: id, title: title, total: total, data: data, summary: "\(title): \(total)", caption: caption) { body }
    }

    /// A chart's `<svg>`: its title, data attributes and body.
    static func frame(id: String, title: String, total: String, data: String, summary: String, caption: String? = nil,
                      body: () -> String) -> String {
        "<figure class=\"chart\"><svg id=\"chart-\(id)\" data-chart=\"\(id)\" "
            + "data-total=\"\(HTMLText.escape(total))\" data-values=\"\(HTMLText.escape(data))\" width=\"\(Int(width))\" "
            + "height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\">"
            + "<title>\(HTMLText.escape(summary))</title>"
            + "<text class=\"heading\" x=\"\(number(left))\" y=\"18\">\(HTMLText.escape(title))</text>"
            + body() + "</svg>" + (caption.map { "<figcaption>\(HTMLText.escape($0))</figcaption>" } ?? "") + "</figure>"
    }

    /// The two axes, their labels (with units) and the top value of the y axis.
    static func axes(yLabel: String, xLabel: String?, yHigh: String, xHigh: String?) -> String {
        let plotBottom = height - bottom, plotRight = width - right
        var svg = "<path d=\"M\(number(left)) \(number(top))V\(number(plotBottom))H\(number(plotRight))\" stroke=\"#888\" fill=\"none\"/>"
            + "<text x=\"\(number(left - 4))\" y=\"\(number(top + 4))\" text-anchor=\"end\">\(HTMLText.escape(yHigh))</text>"
            + "<text x=\"\(number(left - 4))\" y=\"\(number(plotBottom))\" text-anchor=\"end\">0</text>"
            + "<text class=\"axis-label\" transform=\"translate(14 \(number((top + plotBottom) / 2))) rotate(-90)\" "
            + "text-anchor=\"middle\">\(HTMLText.escape(yLabel))</text>"
        if let xLabel {
            svg += "<text class=\"axis-label\" x=\"\(number((left + plotRight) / 2))\" y=\"\(number(height - 6))\" "
                + "text-anchor=\"middle\">\(HTMLText.escape(xLabel))</text>"
                + "<text x=\"\(number(left))\" y=\"\(number(plotBottom + 14))\" text-anchor=\"middle\">0</text>"
        }
        if let xHigh {
            svg += "<text x=\"\(number(plotRight))\" y=\"\(number(plotBottom + 14))\" text-anchor=\"end\">\(HTMLText.escape(xHigh))</text>"
        }
        return svg
    }

    /// A coordinate or value in its shortest spelling to 0.01.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return String(format: "%.2f", rounded)
    }

    /// Bytes as a person reads them (1000-based, as `ls -h --si`).
    static func bytes(_ value: Double) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(max(0, min(value, 9e18))), countStyle: .file)
    }
}
