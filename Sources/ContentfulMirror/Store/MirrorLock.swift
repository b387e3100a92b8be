#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one-writer-at-a-time lock of a mirror: an exclusive `flock(2)` on `.mirror/lock`.
///
/// The kernel releases the lock when the holder exits, however it exits, so a crashed sync never
/// leaves a stale lock behind. The file records the holder's pid for the error message.
final class MirrorLock {
  private let fd: Int32

  /// Takes the lock or fails at once.
  ///
  /// - Throws: ``MirrorError`` `.locked` naming the holder when another process has it.
  init(path: String) throws(MirrorError) {
    let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FileSystem.error("cannot open the lock file", path, errno) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      var buffer = [UInt8](repeating: 0, count: 32)
      let count = read(fd, &buffer, buffer.count)
      close(fd)
      guard code == EWOULDBLOCK else { throw FileSystem.error("cannot lock", path, code) }
      let holder = String(
        decoding: buffer.prefix(max(count, 0)).filter {
          $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
        },
        as: UTF8.self)
      throw MirrorError(
        .locked,
        "another contentful-mirror process\(holder.isEmpty ? "" : " (pid \(holder))") is working on "
          + "this mirror; wait for it to finish, then run the command again",
        path: path)
    }
    self.fd = fd
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(fd, 0)
    _ = pwrite(fd, pid, pid.count, 0)
  }

  deinit {
    _ = ftruncate(fd, 0)
    flock(fd, LOCK_UN)
    close(fd)
  }
}
