/// Why tags could not be read or written: the words for the item's summary, and the `errno` of
/// the system call that failed when the file itself could not be opened, written or renamed (nil
/// when the bytes are at fault: truncated, damaged, not the container named).
///
/// MedleyTags imports no adapter, so it has its own error; MedleyCore turns it into an item's
/// failure with the same words (`ItemFailure(_:_:context:)`).
public struct TagIOError: Error, Equatable, CustomStringConvertible {
    /// The words for the item's summary: what failed, and why.
    public let reason: String
    /// The system call's error number, when one failed.
    public let errno: Int32?

    /// An error saying `reason`; `errno` when a system call failed.
    public init(_ reason: String, errno: Int32? = nil) {
        self.reason = reason
        self.errno = errno
    }

    public var description: String { reason }
}
