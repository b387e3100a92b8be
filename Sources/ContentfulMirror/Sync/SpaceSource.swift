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
}
