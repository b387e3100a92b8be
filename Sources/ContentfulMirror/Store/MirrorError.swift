/// A problem with the mirror directory itself: files, the manifest, the lock.
public struct MirrorError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, for programs. New codes may be added.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }
    public var description: String { name }

    /// A file system call failed (permissions, disk full, …).
    public static let io = Code("io")
    /// Another process holds the mirror's lock.
    public static let locked = Code("locked")
    /// The manifest or an index file is unreadable or of an unknown format.
    public static let corrupt = Code("corrupt")
    /// A symbolic link or other foreign file stands where the mirror expects its own files.
    public static let unsafePath = Code("unsafePath")
    /// The directory is not a mirror (no manifest).
    public static let notAMirror = Code("notAMirror")
  }

  public var code: Code
  public var message: String
  /// The path concerned, when there is one.
  public var path: String?
  /// `errno` of the failed call, when there is one.
  public var errno: Int32?

  public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
    self.code = code
    self.message = message
    self.path = path
    self.errno = errno
  }

  public var description: String { message }
}
