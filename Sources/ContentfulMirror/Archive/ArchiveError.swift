/// An export or restore that could not complete. The message says what to do.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, for programs. New codes may be added.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }
    public var description: String { name }

    /// libarchive or the file system failed while writing or reading an archive.
    public static let io = Code("io")
    /// The archive is not one this tool can restore (foreign, filtered, damaged).
    public static let invalidArchive = Code("invalidArchive")
    /// The archive holds something that must not be extracted (absolute path, `..`, link, device).
    public static let unsafeEntry = Code("unsafeEntry")
    /// Options that do not fit (unknown format, missing `--format` for stdout, …).
    public static let invalidOptions = Code("invalidOptions")
    /// `--since` names a token older than what the mirror remembers.
    public static let sinceTooOld = Code("sinceTooOld")
    /// The restore target already holds files.
    public static let targetNotEmpty = Code("targetNotEmpty")
  }

  public var code: Code
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { message }
}
