import MedleyFilters
import MedleyYAML

/// One problem found in a pipeline file, pointing at where it was written.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let mark: SourceMark
    public let message: String
    /// What the user probably meant, or how to fix it.
    public let suggestion: String?

    public init(file: String, mark: SourceMark, message: String, suggestion: String? = nil) {
        self.file = file
        self.mark = mark
        self.message = message
        self.suggestion = suggestion
    }

    /// `FILE:LINE:COL: error: message; suggestion`, the form compilers use so editors can jump.
    public var description: String {
        "\(file):\(mark.line):\(mark.column): error: \(message)" + (suggestion.map { "; \($0)" } ?? "")
    }
}

/// The pipeline could not be accepted; every problem is listed, in file order.
public struct ValidationFailure: Error, CustomStringConvertible {
    public let diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Collects diagnostics while a pipeline is read, so all of them are reported at once.
final class DiagnosticSink {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    func error(_ node: YAMLNode, _ message: String, suggestion: String? = nil) {
        error(at: node.mark, message, suggestion: suggestion)
    }

    func error(at mark: SourceMark, _ message: String, suggestion: String? = nil) {
        diagnostics.append(Diagnostic(file: file, mark: mark, message: message, suggestion: suggestion))
    }

    /// "did you mean 'x'?" when a close candidate exists.
    static func didYouMean(_ name: String, in candidates: [String]) -> String? {
        nearest(name, in: candidates).map { "did you mean '\($0)'?" }
    }

    var sorted: [Diagnostic] {
        diagnostics.enumerated().sorted {
            ($0.element.mark.line, $0.element.mark.column, $0.offset)
                < ($1.element.mark.line, $1.element.mark.column, $1.offset)
        }.map(\.element)
    }
}
