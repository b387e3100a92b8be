/// A space recorded on disk in the CDA's response format, replayed without a network.
///
/// Layout of the directory:
/// ```
/// space.json            the /spaces/{id} response (its sys.id is the space id)
/// locales.json          the /locales collection
/// content_types.json    the /content_types collection
/// sync/initial.json     the first page of the initial sync
/// sync/<token>.json     the page a nextPageUrl/nextSyncUrl token leads to
/// ```
/// A sync from a recorded space stores the last page's token like any other; the next sync asks
/// for that token's file, so a space recorded with a later delta replays initial sync, delta and
/// "nothing new" on successive runs.
public struct RecordedSpace: SpaceSource {
  /// The directory holding the recording.
  public let directory: String

  public init(directory: String) {
    self.directory = directory
  }

  /// The space id recorded in `space.json`.
  public func spaceID() throws(SyncError) -> String {
    let fileSystem = FileSystem()
    let path = directory + "/space.json"
    guard let bytes = try? fileSystem.readFileIfPresent(path),
      let id = (try? JSONReader().read(bytes))?["sys"]?["id"]?.stringValue
    else {
      throw SyncError(
        .invalidConfiguration,
        "\(directory) is not a recorded space (no readable space.json); pass the sample-space directory"
      )
    }
    try Identifier.validate(id, as: .entryID, in: path)
    return id
  }

  public func fetch(_ request: SourceRequest) async throws(SyncError) -> [UInt8] {
    let name: String
    switch request {
    case .locales(let skip): name = skip == 0 ? "locales.json" : "locales-\(skip).json"
    case .contentTypes(let skip):
      name = skip == 0 ? "content_types.json" : "content_types-\(skip).json"
    case .initialSync: name = "sync/initial.json"
    case .sync(let token):
      guard Identifier.isValid(token) else { throw Self.rejected(token) }
      name = "sync/\(token).json"
    }
    let path = directory + "/" + name
    let bytes: [UInt8]?
    do {
      bytes = try FileSystem().readFileIfPresent(path)
    } catch {
      throw SyncError(
        .unavailable, "cannot read the recorded space: \(error.message)", cause: error)
    }
    guard let bytes else {
      if case .sync(let token) = request { throw Self.rejected(token) }
      throw SyncError(
        .invalidConfiguration, "the recorded space has no \(name) (looked in \(directory))")
    }
    return bytes
  }

  private static func rejected(_ token: String) -> SyncError {
    SyncError(
      .tokenRejected,
      "the recorded space has no page for sync token \(Identifier.quoted(token)); "
        + "run `contentful-mirror sync --full` to start over")
  }
}
