import MedleyKernels

/// One pass over the pixels.
public enum PixelStep: Sendable, Equatable {
    case colorMatrix(ColorMatrix)

    /// The kernel that performs this step on rows stored with `transfer`.
    public func kernel(transfer: Transfer) -> RowKernel {
        switch self {
        case .colorMatrix(let matrix): return ColorMatrixKernel(matrix: matrix, transfer: transfer)
        }
    }

    /// Whether the step needs three colour channels (grey input is widened to RGB first).
    public var needsColor: Bool { true }
}

/// An optimised recipe: the source it reads and the passes to run, in order.
///
/// The optimiser is the only place that knows how steps combine; kernels never see the graph.
/// Today it fuses consecutive colour matrices into one (so `sepia → sepia → sepia` is one
/// pass) and drops steps that change nothing.
public struct RenderPlan: Sendable, Equatable {
    public let source: String
    public let steps: [PixelStep]

    public init(source: String, steps: [PixelStep]) {
        self.source = source
        self.steps = steps
    }

    /// Optimises a recipe into a plan.
    public init(_ image: FilterImage) {
        var steps: [PixelStep] = []
        var node = image
        var reversed: [PixelStep] = []
        while true {
            switch node {
            case .source(let name):
                steps = Self.fuse(reversed.reversed())
                self.init(source: name, steps: steps)
                return
            case .colorMatrix(let matrix, let input):
                reversed.append(.colorMatrix(matrix))
                node = input
            }
        }
    }

    /// Collapses runs of colour matrices into one and removes identities.
    static func fuse(_ steps: [PixelStep]) -> [PixelStep] {
        var fused: [PixelStep] = []
        for step in steps {
            switch (fused.last, step) {
            case (.colorMatrix(let first)?, .colorMatrix(let second)):
                fused[fused.count - 1] = .colorMatrix(second.after(first))
            default:
                fused.append(step)
            }
        }
        return fused.filter { step in
            if case .colorMatrix(let matrix) = step { return !matrix.isIdentity }
            return true
        }
    }
}
