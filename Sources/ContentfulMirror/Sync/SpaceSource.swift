/// One request the sync engine makes of a space.
public enum SourceRequest: Sendable, Hashable {
  /// A page of `/locales`, starting at `skip`.
  case locales(skip: Int)
  /// A page of `/content_types`, starting at `skip`.
  case contentTypes(skip: Int)
  /// The first page of an initial sync (`/sync?initial=true`).
  case initialSync
  /// The page that `token` (from a `nextPageUrl` or `nextSyncUrl`) names.
  case sync(token: String)
}

/// Where a mirror's data comes from: the CDA over HTTP, or a recorded space on disk.
///
/// A source returns the raw bytes of the response; decoding and validation are the same for
/// every source, so a recorded space exercises exactly the path a live sync takes.
public protocol SpaceSource: Sendable {
  /// The response body for `request`.
  ///
  /// - Throws: ``SyncError``; `.tokenRejected` when the source refuses a sync token.
  func fetch(_ request: SourceRequest) async throws(SyncError) -> [UInt8]

  /// The response for `request` as `decode` reads it.
  ///
  /// A source that can ask again treats a response `decode` rejects as
  /// ``SyncError/Code-swift.struct/malformedResponse`` (cut short, or not the shape of the
  /// answer) like a dropped connection, and retries it within its bounds; any other error from
  /// `decode` is final. The default implementation decodes what ``fetch(_:)`` returns, once.
  func fetch<Value>(
    _ request: SourceRequest, decodedBy decode: ([UInt8]) throws(SyncError) -> Value
  ) async throws(SyncError) -> Value
}

extension SpaceSource {
  public func fetch<Value>(
    _ request: SourceRequest, decodedBy decode: ([UInt8]) throws(SyncError) -> Value
  ) async throws(SyncError) -> Value {
    try decode(try await fetch(request))
  }
}
