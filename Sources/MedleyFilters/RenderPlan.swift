import MedleyKernels
import Synchronization

/// One pass of point-wise work over the pixels.
public enum PixelStep: Sendable {
    /// Only colour matrices: the table-driven 8-bit fast path.
    case colorMatrix(ColorMatrix)
    /// Point-wise operations fused into one loop: over 8-bit rows its matrices and channel-wise
    /// curves run as tables (`CompiledChainKernel`), everything else over planar float blocks.
    case pointChain(PointChain)

    /// The kernel that performs this step on rows stored with `transfer` (ignored for float
    /// rows, which are already in the working space), for an image of the given size.
    public func kernel(transfer: Transfer, imageWidth: Int, imageHeight: Int) -> RowKernel {
        switch self {
        case .colorMatrix(let matrix):
            return ColorMatrixKernel(matrix: matrix, transfer: transfer)
        case .pointChain(let chain):
            return chain.kernel(transfer: transfer, imageWidth: imageWidth, imageHeight: imageHeight)
        }
    }

    /// The same step as operations for the float path (where the 8-bit tables do not apply).
    public var operations: [PointOperation] {
        switch self {
        case .colorMatrix(let matrix): return [ColorMatrixOperation(matrix)]
        case .pointChain(let chain): return chain.operations
        }
    }
}

/// Point-wise operations fused into one pass, and the kernels made for them so far. Compiling a chain
/// into tables (`CompiledChainKernel`: its curves sampled by the operations, then checked against the
/// float path) takes milliseconds — more than rendering a thumbnail — so a job makes the kernel once
/// per working space and image size, and every image of that size shares it (kernels hold no state).
public final class PointChain: Sendable {
    public let operations: [PointOperation]
    private let kernels = Mutex<[Key: any RowKernel]>([:])
    /// Kernels kept at most: a job over more sizes than this starts again from none.
    static let capacity = 16

    private struct Key: Hashable {
        let linear: Bool
        let width: Int
        let height: Int
    }

    public init(_ operations: [PointOperation]) { self.operations = operations }

    /// The kernel for rows stored with `transfer`, of an image of the given size: made on first use.
    public func kernel(transfer: Transfer, imageWidth: Int, imageHeight: Int) -> any RowKernel {
        let key = Key(linear: transfer == .sRGB, width: imageWidth, height: imageHeight)
        if let made = kernels.withLock({ $0[key] }) { return made }
        // Made outside the lock: two items of one size may both make it; the first one kept wins.
        let made = Self.make(operations, transfer: transfer, imageWidth: imageWidth, imageHeight: imageHeight)
        return kernels.withLock { kernels in
            if let first = kernels[key] { return first }
            if kernels.count >= Self.capacity { kernels.removeAll() }
            kernels[key] = made
            return made
        }
    }

    private static func make(_ operations: [PointOperation], transfer: Transfer, imageWidth: Int,
                             imageHeight: Int) -> any RowKernel {
        // A LUT file alone over stored sRGB samples reads them as they are (see ColorLookupOperation).
        if transfer == .sRGB, operations.count == 1, let lut = operations[0] as? ColorLookupOperation,
           let kernel = lut.storedSampleKernel(imageWidth: imageWidth, imageHeight: imageHeight) {
            return kernel
        }
        // Matrices and channel-wise curves become table lookups when they stay within a step of the float path.
        if let compiled = CompiledChainKernel.compile(operations, transfer: transfer,
                                                      imageWidth: imageWidth, imageHeight: imageHeight) {
            return compiled
        }
        return PointChainKernel(operations: operations, transfer: transfer,
                                imageWidth: imageWidth, imageHeight: imageHeight)
    }
}

/// An optimised recipe, as a tree of passes. The optimiser is the only place that knows how
/// steps combine; kernels never see the graph. Along every chain it collapses consecutive
/// colour matrices into one, drops identities, and joins runs of point-wise operations into a
/// single pass (`.points`).
public indirect enum RenderNode: Sendable {
    case source(String)
    case points(PixelStep, of: RenderNode)
    case region(RegionKernel, of: RenderNode)
    case geometry(GeometryOperation, of: RenderNode)
    case composite(RowKernel2, foreground: RenderNode, background: RenderNode)
    case measured(MeasuredOperation, of: RenderNode, table: RenderNode?)
    case constant(SIMD4<Float>)

    /// Whether the whole tree is point-wise passes over the ingested image (the fast stored-sample path).
    public var isPointOnly: Bool {
        switch self {
        case .source(let name): return name == "input"
        case .points(_, let input): return input.isPointOnly
        default: return false
        }
    }

    /// Whether any step composites or generates images, which needs an alpha band even when the
    /// input has none (blurs and point steps of opaque images run on three bands).
    public var needsAlpha: Bool {
        switch self {
        case .source: return false
        case .composite, .constant: return true
        case .geometry(let operation, let input): return operation.makesTransparency || input.needsAlpha
        case .points(_, let input), .region(_, let input): return input.needsAlpha
        case .measured(_, let input, let table): return input.needsAlpha || (table?.needsAlpha ?? false)
        }
    }

    /// Whether any point-wise step may change alpha, which an opaque image needs a band for.
    public var changesAlpha: Bool {
        switch self {
        case .source, .constant: return false
        case .points(let step, let input): return step.operations.contains { $0.changesAlpha } || input.changesAlpha
        case .region(_, let input), .geometry(_, let input): return input.changesAlpha
        case .composite(_, let foreground, let background): return foreground.changesAlpha || background.changesAlpha
        // The table's alpha becomes the output's (a gradient or palette with transparent colours).
        case .measured(_, let input, let table): return input.changesAlpha || table != nil
        }
    }

    /// Whether the output has areas a step left empty — a hole, the space around a perspective or a
    /// barcode's canvas — that the output must keep transparent (a format without alpha flattens them
    /// onto `export.background`). A composite's foreground holes show its background.
    public var leavesTransparency: Bool {
        var node = self
        while true {
            switch node {
            case .source, .constant: return false
            case .geometry(let operation, let input):
                if operation.makesTransparency { return true }
                node = input
            case .points(_, let input), .region(_, let input), .measured(_, let input, _): node = input
            case .composite(_, _, let background): node = background
            }
        }
    }

    /// Whether any step is measured from pixels before its pass (CIColorMap, CIPalettize,
    /// CIColorThresholdOtsu): the renderer then reads the source more than once, so holds it in memory.
    public var isMeasured: Bool {
        switch self {
        case .source, .constant: return false
        case .measured: return true
        case .points(_, let input), .region(_, let input), .geometry(_, let input): return input.isMeasured
        case .composite(_, let foreground, let background): return foreground.isMeasured || background.isMeasured
        }
    }

    /// The tree without `autoOrient` steps over pictures made from the input alone (no other source on
    /// the way): for an input that is upright already, where each of them turns nothing. Recursive as
    /// deep as the recipe (bounded by the pipeline's step limit).
    public var withoutOrientingTheInput: RenderNode {
        switch self {
        case .source, .constant: return self
        case .geometry(.orient, let input) where input.isMadeFromTheInputAlone: return input.withoutOrientingTheInput
        case .geometry(let operation, let input): return .geometry(operation, of: input.withoutOrientingTheInput)
        case .points(let step, let input): return .points(step, of: input.withoutOrientingTheInput)
        case .region(let kernel, let input): return .region(kernel, of: input.withoutOrientingTheInput)
        case .composite(let kernel, let foreground, let background):
            return .composite(kernel, foreground: foreground.withoutOrientingTheInput, background: background.withoutOrientingTheInput)
        case .measured(let operation, let input, let table):
            return .measured(operation, of: input.withoutOrientingTheInput, table: table?.withoutOrientingTheInput)
        }
    }

    /// Whether the picture is the input through single-input steps (no picture of the graph's own, whose
    /// file may carry an orientation of its own).
    var isMadeFromTheInputAlone: Bool {
        var node = self
        while true {
            switch node {
            case .source(let name): return name == "input"
            case .points(_, let input), .region(_, let input), .geometry(_, let input): node = input
            case .constant, .composite, .measured: return false
            }
        }
    }

    /// The geometry step applied directly to the source, if the chain starts with one (a
    /// `resize` there can shrink while decoding).
    public var firstGeometry: GeometryOperation? {
        switch self {
        case .geometry(let operation, .source("input")): return operation
        case .points(_, let input), .region(_, let input), .geometry(_, let input), .measured(_, let input, _):
            return input.firstGeometry
        default: return nil
        }
    }
}

/// The optimised plan of a recipe.
public struct RenderPlan: Sendable {
    public let root: RenderNode

    public init(_ image: FilterImage) {
        root = Self.optimise(image)
    }

    private init(root: RenderNode) { self.root = root }

    /// The plan for an input already turned upright by its EXIF orientation (the export's `autoOrient`,
    /// the default): an `autoOrient` step over the input has nothing left to do, so it goes. Then a
    /// `resize` after it is the plan's first step, and shrinks on load as it does in a job without the
    /// `autoOrient` — so a photo is resampled by one rule whatever its orientation tag says.
    public var forUprightInput: RenderPlan { RenderPlan(root: root.withoutOrientingTheInput) }

    /// For point-only plans: the passes in order from the source (empty when nothing changes).
    public var steps: [PixelStep] {
        var steps: [PixelStep] = []
        var node = root
        while case .points(let step, let input) = node {
            steps.insert(step, at: 0)
            node = input
        }
        return steps
    }

    private enum Link {
        case matrix(ColorMatrix)
        case operation(PointOperation)
    }

    /// Recursive over the recipe's non-point nodes: its depth is bounded by the pipeline's limit on
    /// filter steps (`ImageGraph.maximumSteps`), runs of point-wise links are gathered in a loop.
    private static func optimise(_ image: FilterImage) -> RenderNode {
        // Gather the run of point-wise links above the next non-point node.
        var links: [Link] = []
        var node = image
        let below: RenderNode
        while true {
            switch node {
            case .colorMatrix(let matrix, let input):
                links.append(.matrix(matrix))
                node = input
                continue
            case .point(let operation, let input):
                links.append(.operation(operation))
                node = input
                continue
            case .source(let name): below = .source(name)
            case .region(let kernel, let input): below = .region(kernel, of: optimise(input))
            case .geometry(let operation, let input): below = .geometry(operation, of: optimise(input))
            case .composite(let kernel, let foreground, let background):
                // One side made pixel by pixel (a constant colour, a gradient) and the other of the input's
                // extent: the composite is point-wise over the other side, and joins its pass.
                if let generated = background.generated, foreground.keepsInputExtent {
                    links.append(.operation(GeneratedCompositeOperation(kernel: kernel, colour: generated.colour,
                                                                        operations: generated.operations,
                                                                        generatedIsForeground: false)))
                    node = foreground
                    continue
                }
                if let generated = foreground.generated, background.keepsInputExtent {
                    links.append(.operation(GeneratedCompositeOperation(kernel: kernel, colour: generated.colour,
                                                                        operations: generated.operations,
                                                                        generatedIsForeground: true)))
                    node = background
                    continue
                }
                below = .composite(kernel, foreground: optimise(foreground), background: optimise(background))
            case .measured(let operation, let input, let table):
                below = .measured(operation, of: optimise(input), table: table.map(optimise))
            case .constant(let colour): below = .constant(colour)
            }
            break
        }
        guard let step = fuse(links.reversed()) else { return below }
        return .points(step, of: below)
    }

    /// One pass for a run of point-wise links (in application order), or nil if they cancel out.
    private static func fuse(_ links: [Link]) -> PixelStep? {
        var collapsed: [Link] = []
        for link in links {
            if case .matrix(let second) = link, case .matrix(let first)? = collapsed.last {
                collapsed[collapsed.count - 1] = .matrix(second.after(first))
            } else {
                collapsed.append(link)
            }
        }
        collapsed.removeAll { link in
            if case .matrix(let matrix) = link { return matrix.isIdentity }
            return false
        }
        if collapsed.isEmpty { return nil }
        if collapsed.count == 1, case .matrix(let matrix) = collapsed[0] { return .colorMatrix(matrix) }
        return .pointChain(PointChain(collapsed.map { link in
            switch link {
            case .matrix(let matrix): return ColorMatrixOperation(matrix)
            case .operation(let operation): return operation
            }
        }))
    }
}

extension FilterImage {
    /// A constant colour and the point-wise steps over it (a generator: CIConstantColorGenerator, the
    /// gradients, checkerboard, stripes…), in application order; nil for anything else.
    var generated: (colour: SIMD4<Float>, operations: [PointOperation])? {
        var operations: [PointOperation] = []
        var node = self
        while true {
            switch node {
            case .constant(let colour): return (colour, operations.reversed())
            case .point(let operation, let input): operations.append(operation); node = input
            case .colorMatrix(let matrix, let input): operations.append(ColorMatrixOperation(matrix)); node = input
            default: return nil
            }
        }
    }

    /// Whether the image has the extent of the graph's input: no geometry on its way, its sources the
    /// input or generators (a composite has its background's extent). Recursive over composites and
    /// measured tables only through their image sides, as deep as the recipe (bounded by the step limit).
    var keepsInputExtent: Bool {
        var node = self
        while true {
            switch node {
            case .source(let name): return name == "input"
            case .constant: return true
            case .geometry: return false
            case .colorMatrix(_, let input), .point(_, let input), .region(_, let input), .measured(_, let input, _):
                node = input
            case .composite(_, _, let background): node = background
            }
        }
    }
}
