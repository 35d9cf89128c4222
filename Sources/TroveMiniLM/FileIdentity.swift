@preconcurrency import Glibc

/// What `fstat` says identifies a file's content without reading it: replacing, rewriting or touching the file
/// changes at least one field (the change time cannot be set back by a user).
struct FileIdentity: Equatable, Sendable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: UInt64 = 0
    var modified: UInt64 = 0
    var modifiedNanoseconds: UInt64 = 0
    var changed: UInt64 = 0
    var changedNanoseconds: UInt64 = 0

    init(
        device: UInt64 = 0, inode: UInt64 = 0, size: UInt64 = 0, modified: UInt64 = 0, modifiedNanoseconds: UInt64 = 0,
        changed: UInt64 = 0, changedNanoseconds: UInt64 = 0
    ) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changed = changed
        self.changedNanoseconds = changedNanoseconds
    }

    init(_ info: stat) {
        self.init(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: UInt64(bitPattern: Int64(info.st_size)),
            modified: UInt64(bitPattern: Int64(info.st_mtim.tv_sec)),
            modifiedNanoseconds: UInt64(bitPattern: Int64(info.st_mtim.tv_nsec)),
            changed: UInt64(bitPattern: Int64(info.st_ctim.tv_sec)),
            changedNanoseconds: UInt64(bitPattern: Int64(info.st_ctim.tv_nsec)))
    }
}
