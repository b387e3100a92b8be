import ContentfulMirror

/// Serves a space's `/locales` and `/content_types` responses from memory, so the benchmark
/// builds a ``SpaceModel`` the way a sync does (``SpaceModel/fetch(from:)``) without a server.
struct ModelSource: SpaceSource {
  let locales: [UInt8]
  let contentTypes: [UInt8]

  func fetch(_ request: SourceRequest) async throws(SyncError) -> [UInt8] {
    switch request {
    case .locales: locales
    case .contentTypes: contentTypes
    case .initialSync, .sync:
      throw SyncError(.invalidConfiguration, "the model source serves no sync pages")
    }
  }
}
