import MedleyKernels

/// One pass over the pixels.
public enum PixelStep: Sendable {
    /// Only colour matrices: the table-driven 8-bit fast path.
    case colorMatrix(ColorMatrix)
    /// Point-wise operations fused into one loop over planar float blocks.
    case pointChain([PointOperation])

    /// The kernel that performs this step on rows stored with `transfer`, for an image of the
    /// given size (position-dependent operations need it).
    public func kernel(transfer: Transfer, imageWidth: Int, imageHeight: Int) -> RowKernel {
        switch self {
        case .colorMatrix(let matrix):
            return ColorMatrixKernel(matrix: matrix, transfer: transfer)
        case .pointChain(let operations):
            return PointChainKernel(operations: operations, transfer: transfer,
                                    imageWidth: imageWidth, imageHeight: imageHeight)
        }
    }

    /// How many operations the step runs per pixel (1 for a fused matrix).
    public var operationCount: Int {
        switch self {
        case .colorMatrix: return 1
        case .pointChain(let operations): return operations.count
        }
    }
}

/// An optimised recipe: the source it reads and the passes to run, in order.
///
/// The optimiser is the only place that knows how steps combine; kernels never see the graph.
/// Consecutive colour matrices collapse into one (so `sepia → exposure → sepia` is one matrix),
/// identities disappear, and a run of point-wise operations becomes a single pass.
public struct RenderPlan: Sendable {
    public let source: String
    public let steps: [PixelStep]

    public init(source: String, steps: [PixelStep]) {
        self.source = source
        self.steps = steps
    }

    /// Optimises a recipe into a plan.
    public init(_ image: FilterImage) {
        var reversed: [Link] = []
        var node = image
        while true {
            switch node {
            case .source(let name):
                self.init(source: name, steps: Self.fuse(reversed.reversed()))
                return
            case .colorMatrix(let matrix, let input):
                reversed.append(.matrix(matrix))
                node = input
            case .point(let operation, let input):
                reversed.append(.operation(operation))
                node = input
            }
        }
    }

    private enum Link {
        case matrix(ColorMatrix)
        case operation(PointOperation)
    }

    /// Collapses runs of colour matrices, drops identities, and joins everything point-wise
    /// into one pass.
    private static func fuse(_ links: [Link]) -> [PixelStep] {
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
        if collapsed.isEmpty { return [] }
        if collapsed.count == 1, case .matrix(let matrix) = collapsed[0] { return [.colorMatrix(matrix)] }
        return [.pointChain(collapsed.map { link in
            switch link {
            case .matrix(let matrix): return ColorMatrixOperation(matrix)
            case .operation(let operation): return operation
            }
        })]
    }
}
