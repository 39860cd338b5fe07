import CSystemShim
import Foundation

/// Moving a directory entry between two open folders without replacing what is at the destination.
public enum FileMoves {
    /// `renameat2(…, RENAME_NOREPLACE)`: moves `name` in the folder open as `fromFolder` to
    /// `newName` in the folder open as `toFolder`, atomically, and only if `newName` is free.
    /// Returns nil when moved, else the errno (`EEXIST`: the name is taken; `EXDEV`: another file
    /// system; `EINVAL`/`ENOSYS`: this file system or kernel cannot move without replacing).
    public static func renameWithoutReplacing(_ name: String, in fromFolder: Int32,
                                              to newName: String, in toFolder: Int32) -> Int32? {
        medley_rename_noreplace(fromFolder, name, toFolder, newName) == 0 ? nil : errno
    }
}
