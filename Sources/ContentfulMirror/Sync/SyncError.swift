/// A sync that could not complete. The message says what failed and what to do about it.
///
/// Messages never contain the access token: requests carry it only in a header, and no header is
/// ever quoted.
public struct SyncError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, for programs. New codes may be added.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }
    public var description: String { name }

    /// An id, content type id or locale code broke Contentful's rules.
    public static let invalidIdentifier = Code("invalidIdentifier")
    /// A response or recorded page carries content the mirror refuses (duplicate items, an
    /// entry without a content type, …). Asking again would give the same answer.
    public static let invalidResponse = Code("invalidResponse")
    /// A response is not JSON, is cut short, or is not the shape of the answer asked for: what
    /// a dropped connection or a misbehaving proxy produces, so HTTP sources retry it.
    public static let malformedResponse = Code("malformedResponse")
    /// The server rejected the stored sync token; `sync --full` starts over.
    public static let tokenRejected = Code("tokenRejected")
    /// The access token is missing or was refused.
    public static let unauthorized = Code("unauthorized")
    /// The space or environment does not exist (or the token cannot see it).
    public static let notFound = Code("notFound")
    /// The server asked us to wait longer than we are willing to.
    public static let rateLimited = Code("rateLimited")
    /// The server or the network kept failing after the allowed retries.
    public static let unavailable = Code("unavailable")
    /// Options that do not fit together or do not fit this mirror.
    public static let invalidConfiguration = Code("invalidConfiguration")
  }

  public var code: Code
  public var message: String
  /// The lower-level error, when there is one.
  public var cause: (any Error & Sendable)?

  public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  public var description: String { message }
}
