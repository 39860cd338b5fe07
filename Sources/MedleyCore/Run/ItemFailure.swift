import MedleyMedia

/// Why one item failed, in words for the summary (the path is added by the caller).
public struct ItemFailure: Error, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }

    /// Runs `body`, turning a media library's error into the item's failure, its reason after
    /// `context` ("cannot re-encode: …") when given: the one place a `MediaError` becomes an `ItemFailure`.
    static func converting<T>(_ context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MediaError {
            throw ItemFailure(context.map { "\($0): \(error.reason)" } ?? error.reason)
        }
    }
}
