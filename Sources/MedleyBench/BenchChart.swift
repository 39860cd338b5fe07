import Foundation
import MedleyCore

/// The bench results as an SVG bar chart, drawn here (no plotting library): one bar per case and
/// peer, its length the ratio Medley ÷ peer on a scale with a line at 1 (parity).
enum BenchChart {
    static func svg(_ report: BenchSuite.Report) -> String {
        var bars: [(label: String, ratio: Double?, note: String)] = []
        for result in report.cases {
            for peer in result.peers {
                let label = "\(result.name): medley ÷ \(peer.tool)"
                if let skipped = peer.skipped {
                    bars.append((label, nil, "skipped (\(skipped))"))
                } else {
                    let ratio = result.medley.median / max(peer.median, 0.001)
                    bars.append((label, ratio, String(format: "%.2f×", ratio)))
                }
            }
        }
        let rowHeight = 26, top = 48, labelWidth = 300, plotWidth = 420
        let height = top + rowHeight * max(bars.count, 1) + 36
        let width = labelWidth + plotWidth + 120
        // Scale: at least 0…1.5, enough for the largest ratio.
        let scaleMax = max(1.5, (bars.compactMap(\.ratio).max() ?? 1) * 1.1)
        func x(_ ratio: Double) -> Double { Double(labelWidth) + ratio / scaleMax * Double(plotWidth) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#fff"/>
            <text x="10" y="20" font-size="15" font-weight="bold">medley bench\(report.quick ? " --quick" : ""): time ÷ peer's time (shorter is faster)</text>
            <text x="10" y="38" fill="#555">\(HTMLText.escape(report.machine)), \(report.jobs) at a time, median of \(report.repeats)</text>

            """
        for (row, bar) in bars.enumerated() {
            let y = top + row * rowHeight
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTMLText.escape(bar.label))</text>\n"
            if let ratio = bar.ratio {
                let colour = ratio <= 1 ? "#2a7f62" : "#b5523b"
                svg += String(format: "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%@\"/>\n",
                              labelWidth, y + 4, max(1, x(ratio) - Double(labelWidth)), rowHeight - 8, colour)
                svg += String(format: "<text x=\"%.1f\" y=\"%d\">%@</text>\n", x(ratio) + 6, y + 16, bar.note)
            } else {
                svg += "<text x=\"\(labelWidth + 6)\" y=\"\(y + 16)\" fill=\"#888\">\(HTMLText.escape(bar.note))</text>\n"
            }
        }
        let parity = x(1)
        svg += String(format: "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n",
                      parity, top - 4, parity, height - 30)
        svg += String(format: "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">1.0 = as fast as the peer</text>\n",
                      parity, height - 14)
        svg += "</svg>\n"
        return svg
    }
}
