import Foundation

/// How a sprite sheet is made from a movie: `sprites: {every, columns, width, vtt}`.
public struct SpriteSettings: Sendable, Equatable {
    /// Seconds between pictures.
    public var every: Double = 10
    public var columns: Int = 5
    /// Each cell's width; the height keeps the displayed aspect.
    public var width: Int = 160
    /// Write the WebVTT file of cues beside the picture.
    public var vtt = true

    public init() {}

    /// The times pictures are taken at in a movie of `length` seconds: 0, every, 2·every, … before the end.
    public func times(movieLength length: Double) -> [Double] {
        guard length > 0, every > 0 else { return [] }
        let count = Int(min(1e7, (length / every - 1e-9).rounded(.up)))
        return (0..<max(1, count)).map { Double($0) * every }
    }

    /// A cell's size for a movie displayed `displayWidth` × `displayHeight`.
    public func cellSize(displayWidth: Int, displayHeight: Int) -> (width: Int, height: Int) {
        (width, max(1, Int((Double(width) * Double(displayHeight) / Double(max(1, displayWidth))).rounded())))
    }

    /// WebVTT cues, one per picture: its time span and `image#xywh=x,y,w,h` (its cell in the picture).
    public func vttText(times: [Double], movieLength: Double, image: String, cellWidth: Int, cellHeight: Int) -> String {
        var text = "WEBVTT\n"
        for (index, start) in times.enumerated() {
            let end = index + 1 < times.count ? times[index + 1] : max(start, movieLength)
            let x = index % columns * cellWidth, y = index / columns * cellHeight
            text += "\n\(Self.timestamp(start)) --> \(Self.timestamp(end))\n\(image)#xywh=\(x),\(y),\(cellWidth),\(cellHeight)\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt`, as WebVTT writes times.
    public static func timestamp(_ seconds: Double) -> String {
        let millis = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
    }
}

/// A sprite sheet as made: the picture (not yet saved) and where each cell came from.
public struct SpriteSheet: Sendable {
    public var image: VipsImage
    public var times: [Double]
    public var cellWidth: Int
    public var cellHeight: Int
    public var rows: Int
}

extension Movie {
    /// The frames at 0, every, 2·every, … (each as `ffmpeg -ss T -i in -frames:v 1` gives it, displayed),
    /// scaled to the cell size with Lanczos-3 and laid out in rows of `columns`.
    public static func sprites(path: String, info: MovieInfo, settings: SpriteSettings) throws -> SpriteSheet {
        let times = settings.times(movieLength: info.duration)
        guard !times.isEmpty else {
            throw MediaError(.medley, "sprites", "the movie does not say how long it lasts; sprites need its duration", cause: .unsupported)
        }
        let cell = settings.cellSize(displayWidth: info.displayWidth, displayHeight: info.displayHeight)
        let columns = min(settings.columns, times.count), rows = (times.count + settings.columns - 1) / settings.columns
        let sheetWidth = columns * cell.width, sheetHeight = rows * cell.height
        var sheet = [UInt8](repeating: 0, count: sheetWidth * sheetHeight * 3)
        for (index, time) in times.enumerated() {
            let frame = try Movie.frame(path: path, at: time)
            var pixels = frame.rgb
            if frame.width != cell.width || frame.height != cell.height {
                let scaled = try frame.image().resized(horizontal: Double(cell.width) / Double(frame.width),
                                                      vertical: Double(cell.height) / Double(frame.height))
                // Rounding in the resampler can leave a row or column more or less: cut or pad to the cell.
                let fitted = try scaled.embedded(x: 0, y: 0, width: cell.width, height: cell.height)
                pixels = try fitted.pixels()
            }
            let x0 = index % settings.columns * cell.width, y0 = index / settings.columns * cell.height
            for row in 0..<cell.height {
                let from = row * cell.width * 3, to = ((y0 + row) * sheetWidth + x0) * 3
                sheet.replaceSubrange(to..<to + cell.width * 3, with: pixels[from..<from + cell.width * 3])
            }
        }
        let image = try VipsImage.fromPixels(sheet, width: sheetWidth, height: sheetHeight, bands: 3)
        return SpriteSheet(image: image, times: times, cellWidth: cell.width, cellHeight: cell.height, rows: rows)
    }
}
