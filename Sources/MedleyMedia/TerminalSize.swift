import CSystemShim

/// The size of the terminal a descriptor writes to, as the kernel knows it.
public enum TerminalSize {
    /// Columns of the terminal on `descriptor` (asked anew each call, so a resized window is
    /// followed), nil when the descriptor is no terminal or the terminal reports no width.
    public static func columns(of descriptor: Int32) -> Int? {
        let columns = Int(medley_terminal_columns(descriptor))
        return columns > 0 ? columns : nil
    }
}
