import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia

/// The `watermark:` step of a job: a logo or a line of text composited onto every image after its
/// filters, before export — sharp's `composite` with gravity, offsets, a size relative to the image,
/// opacity and tiling. Composited source-over in the job's working space (linear light unless
/// `colorSpace: none`), respecting the mark's own alpha.
public struct Watermark: Sendable {
    /// What is drawn.
    public enum Mark: Sendable {
        /// A picture file, read at validation.
        case image(AssetFile)
        /// A text template, drawn per item.
        case text(TextImage)
    }

    /// Where the mark sits: sharp's gravity names.
    public enum Gravity: String, Sendable, CaseIterable {
        case north, northeast, east, southeast, south, southwest, west, northwest, centre

        /// -1: against the left (top) edge, 0: centred, 1: against the right (bottom) edge.
        var horizontal: Int {
            switch self {
            case .northwest, .west, .southwest: return -1
            case .north, .centre, .south: return 0
            case .northeast, .east, .southeast: return 1
            }
        }
        var vertical: Int {
            switch self {
            case .northwest, .north, .northeast: return -1
            case .west, .centre, .east: return 0
            case .southwest, .south, .southeast: return 1
            }
        }
    }

    /// A length in pixels, or a percentage of the image's width (x) or height (y).
    public enum Length: Sendable, Equatable {
        case pixels(Double)
        case percent(Double)

        func pixels(of side: Int) -> Double {
            switch self {
            case .pixels(let n): return n
            case .percent(let p): return p / 100 * Double(side)
            }
        }
    }

    public let mark: Mark
    public let gravity: Gravity
    /// Inward from the gravity's edges, as ImageMagick's `-gravity … -geometry +x+y`: from the right
    /// edge for an east gravity, from the bottom for a south one; otherwise right and down.
    public let offset: (x: Length, y: Length)
    /// The mark's width (aspect kept); nil: its own size.
    public let width: Length?
    /// 0…1, multiplies the mark's alpha.
    public let opacity: Double
    /// Repeat the mark over the whole image, `spacing` apart, from the placed copy.
    public let tile: Bool
    public let spacing: (x: Length, y: Length)

    /// The largest mark, in pixels a side.
    static let maximumSide = 100_000.0
}

/// A job's watermark with its picture decoded once (libvips images are immutable: every item reads
/// the same one).
struct PreparedWatermark: ImageOverlay {
    let watermark: Watermark
    /// The logo as 8-bit sRGB + alpha; nil for text.
    let logo: VipsImage?

    init(_ watermark: Watermark) throws {
        self.watermark = watermark
        if case .image(let asset) = watermark.mark {
            logo = try AssetImages.rgba(asset)
        } else {
            logo = nil
        }
    }

    /// The image with the mark composited onto it, and the item's warnings.
    func apply(to image: VipsImage, workingSpace: Transfer, property: (String) -> TemplateValue?,
               maxPixels: Int) throws -> (image: VipsImage, warnings: [String]) {
        let mark: VipsImage, warnings: [String]
        if let logo {
            (mark, warnings) = (logo, [])
        } else if case .text(let text) = watermark.mark {
            (mark, warnings) = try text.draw(property)
        } else {
            return (image, [])
        }
        let width = image.width, height = image.height
        var scale = 1.0
        if let wanted = watermark.width {
            let pixels = wanted.pixels(of: width)
            scale = max(1, pixels.rounded()) / Double(mark.width)
        }
        let (markWidth, markHeight) = try Geometry.checkedSize(((Double(mark.width) * scale).rounded(), (Double(mark.height) * scale).rounded()),
                                                               of: "watermark", maxPixels: maxPixels)
        func place(_ gravity: Int, offset: Double, side: Int, mark: Int) -> Double {
            switch gravity {
            case -1: return offset
            case 1: return Double(side - mark) - offset
            default: return (Double(side - mark) / 2).rounded(.down) + offset
            }
        }
        let x = place(watermark.gravity.horizontal, offset: watermark.offset.x.pixels(of: width), side: width, mark: markWidth)
        let y = place(watermark.gravity.vertical, offset: watermark.offset.y.pixels(of: height), side: height, mark: markHeight)
        let gapX = watermark.spacing.x.pixels(of: width), gapY = watermark.spacing.y.pixels(of: height)
        // Offsets beyond the image leave nothing to draw; keep them inside what libvips addresses.
        func coordinate(_ value: Double) -> Int {
            let bound = 4.0 * ParameterLimit.imageSide.maximum
            return Int(min(max(value.rounded(), -bound), bound))
        }
        do {
            let marked = try image.watermarked(by: mark, scale: scale, x: coordinate(x), y: coordinate(y),
                                               opacity: watermark.opacity, linear: workingSpace == .sRGB,
                                               tile: watermark.tile, gap: (coordinate(max(0, gapX)), coordinate(max(0, gapY))))
            return (marked, warnings)
        } catch let error as MediaError {
            throw ItemFailure(error, .stage, context: "cannot watermark")
        }
    }
}
