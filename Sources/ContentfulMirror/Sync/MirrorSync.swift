/// Syncs a mirror directory with a space: initial sync, delta syncs, resume and `--full`.
///
/// Data flows one way: source bytes → ``SyncPage`` (validated) → documents → ``MirrorStore``.
/// A page is fully validated before any of it is written; documents are written atomically;
/// every few pages a commit point makes them durable and records a checkpoint; the manifest with
/// the new sync token is written last. Applying a page twice gives the same mirror as once, so a
/// sync that fails or is killed anywhere is repaired by running it again.
public struct MirrorSync: Sendable {
  /// The mirror directory.
  public let layout: MirrorLayout

  public init(directory: String) {
    self.layout = MirrorLayout(root: directory)
  }

  /// Works out space, environment and host from `options`, an interrupted sync and the manifest.
  ///
  /// - Throws: ``SyncError`` `.invalidConfiguration` when they conflict or the space is unknown;
  ///   ``MirrorError`` when the manifest is unreadable (unless `options.full`).
  public func target(for options: SyncOptions) throws -> SyncTarget {
    let fileSystem = FileSystem()
    let manifest =
      options.full
      ? try? MirrorStore.readManifest(layout: layout, fileSystem: fileSystem)
      : try MirrorStore.readManifest(layout: layout, fileSystem: fileSystem)
    let checkpoint = Self.checkpoint(layout: layout, fileSystem: fileSystem)
    let recorded =
      manifest.map { ($0.space, $0.environment, $0.host) }
      ?? checkpoint.map { ($0.space, $0.environment, $0.host) }
    if let recorded, let space = options.space, space != recorded.0, !options.full {
      throw SyncError(
        .invalidConfiguration,
        "\(layout.root) mirrors space \(recorded.0), not \(space); use another directory, "
          + "or add --full to replace it")
    }
    guard let space = options.space ?? recorded?.0 else {
      throw SyncError(
        .invalidConfiguration,
        "\(layout.root) is not a mirror yet; pass --space <id> (and set CONTENTFUL_ACCESS_TOKEN) for the first sync"
      )
    }
    try Identifier.validate(space, as: .entryID, in: "--space")
    let environment = options.environment ?? recorded?.1 ?? SyncOptions.defaultEnvironment
    try Identifier.validate(environment, as: .entryID, in: "--environment")
    return SyncTarget(
      space: space, environment: environment,
      host: options.host ?? recorded?.2 ?? SyncOptions.defaultHost)
  }

  static func checkpoint(layout: MirrorLayout, fileSystem: FileSystem) -> Checkpoint? {
    guard let bytes = try? fileSystem.readFileIfPresent(layout.checkpoint),
      let value = try? JSONReader().read(bytes)
    else { return nil }
    return Checkpoint(json: value)
  }

  /// Runs one sync to completion.
  ///
  /// - Parameters:
  ///   - options: What to sync; see ``SyncOptions``.
  ///   - source: Where the data comes from (``CDAClient`` or ``RecordedSpace``).
  ///   - progress: Called as pages are applied.
  /// - Returns: What the sync did.
  /// - Throws: ``SyncError`` or ``MirrorError``; the last committed mirror is intact either way.
  public func run(
    _ options: SyncOptions, source: any SpaceSource,
    progress: @Sendable (SyncEvent) -> Void = { _ in }
  ) async throws -> SyncSummary {
    let target = try target(for: options)
    let store = try MirrorStore(layout: layout)
    store.encoderThreads = options.encoderThreads
    store.writerThreads = options.writerThreads
    store.durability = options.durability
    try store.beginWriting()
    do {
      var manifest: Manifest?
      var committed = true
      do {
        manifest = try store.readManifest()
        committed = manifest != nil
        store.committedSyncToken = manifest?.syncToken
      } catch {
        guard options.full else { throw error }
        try store.removeAllContent()
        manifest = nil
      }
      if manifest?.space != target.space || manifest?.environment != target.environment {
        manifest = options.full ? nil : manifest
      }
      var checkpoint = options.full ? nil : try store.readCheckpoint()
      if let current = checkpoint, current.isFull || current.space != target.space {
        checkpoint = nil  // a --full sync cannot resume: the set of items it saw is gone
      }
      if let current = checkpoint, let manifest,
        current.isInitial || current.fromToken != manifest.syncToken
      {
        checkpoint = nil  // left by a sync killed after writing its manifest: already done
      }
      store.isFirstSync = !committed
      if !committed && checkpoint == nil {
        // A first sync. Anything here was written by a first sync that was killed before its
        // first commit point, and may include items the space no longer has: start clean.
        try store.removeAllContent()
      }

      let model = try await SpaceModel.fetch(from: source)
      let filter: [String]? =
        options.allLocales
        ? nil : options.locales ?? checkpoint?.localeFilter ?? manifest?.localeFilter
      for code in filter ?? [] where !model.locales.contains(where: { $0.code == code }) {
        throw SyncError(
          .invalidConfiguration,
          "locale \(Identifier.quoted(code)) is not a locale of space \(target.space) (it has "
            + model.locales.map(\.code).joined(separator: ", ") + ")")
      }
      let locales = Manifest.mirroredLocales(of: model, filter: filter)
      let renderer = DocumentRenderer(model: model)

      var rerendered = 0
      if let manifest, !options.full,
        manifest.model.renderingSignature != model.renderingSignature
          || manifest.mirroredLocales != locales
      {
        rerendered = try store.rerenderAll(renderer: renderer, locales: locales)
        progress(.rerendered(items: rerendered))
      }

      let isFull = options.full && manifest != nil
      let isInitial = checkpoint?.isInitial ?? (options.full || manifest == nil)
      let firstRequest: SourceRequest =
        if let checkpoint { .sync(token: checkpoint.nextPageToken) } else if isInitial {
          .initialSync
        } else {
          .sync(token: manifest?.syncToken ?? "")
        }
      var pages = checkpoint?.pages ?? 0
      var totalItems = checkpoint?.items ?? 0
      if let checkpoint {
        if checkpoint.isInitial {
          try store.resetIndex()
          _ = try store.rebuildIndexFromSnapshots()
        }
        progress(.resumed(pages: checkpoint.pages))
      }
      var upserted = 0
      var deleted = 0
      var seen = Set<ItemKey>()
      // What a delta changes, for the journal behind `export --since`.
      let fromToken: String? = isInitial ? nil : checkpoint?.fromToken ?? manifest?.syncToken
      var journalUpserts = checkpoint?.upserted ?? []
      var journalRemovals = checkpoint?.deleted ?? []

      // A bounded pipeline: while one page is encoded, the next is fetched and decoded on
      // another thread and the two before are written (see `FileWriteQueue`). At most four
      // pages are in memory.
      var next = Self.prefetch(firstRequest, from: source)
      defer { next.cancel() }
      while true {
        let page = try await next.value
        if case .nextPage(let token) = page.continuation {
          next = Self.prefetch(.sync(token: token), from: source)
        }
        // Keys within a page are distinct, so upserts can go as one parallel batch.
        var batch: [SyncedItem] = []
        for item in page.items {
          switch item {
          case .upsert(let synced):
            batch.append(synced)
            if isFull { seen.insert(synced.key) }
            if fromToken != nil { journalUpserts.append(synced.key) }
          case .deletion(let key):
            let contentType = try store.delete(key)
            deleted += 1
            if fromToken != nil {
              journalRemovals.append(.init(key: key, contentType: contentType))
            }
          }
        }
        try store.upsert(batch, renderer: renderer, locales: locales)
        upserted += batch.count
        pages += 1
        totalItems += page.items.count
        progress(.pageApplied(page: pages, items: page.items.count, totalItems: totalItems))
        switch page.continuation {
        case .nextPage(let token):
          if pages % max(options.pagesPerCheckpoint, 1) == 0 {
            var checkpoint = Checkpoint(
              isInitial: isInitial, isFull: isFull, space: target.space,
              environment: target.environment, host: target.host, localeFilter: filter,
              nextPageToken: token, pages: pages, items: totalItems)
            checkpoint.fromToken = fromToken
            checkpoint.upserted = journalUpserts
            checkpoint.deleted = journalRemovals
            try store.commit(checkpoint, flushIndex: !isInitial)
          }
        case .nextSync(let token):
          var staleRemoved = 0
          if isFull {
            staleRemoved = try store.deleteItems(notIn: seen)
            progress(.removedStale(items: staleRemoved))
          }
          let newManifest = Manifest(
            space: target.space, environment: target.environment, host: target.host,
            syncToken: token,
            model: model, localeFilter: filter)
          let summary = SyncSummary(
            initial: isInitial, pages: pages, upserted: upserted, deleted: deleted,
            documentsWritten: store.documentsWritten, documentsRemoved: store.documentsRemoved,
            rerendered: rerendered, staleRemoved: staleRemoved, locales: locales)
          var record: SyncJournal.Record? = SyncJournal.Record(
            fromToken: fromToken, toToken: token, upserted: journalUpserts, deleted: journalRemovals
          )
          if fromToken == token && journalUpserts.isEmpty && journalRemovals.isEmpty {
            record = nil
          }
          try store.finish(with: newManifest, journal: record, report: Self.report(summary))
          return summary
        }
      }
    } catch {
      // Every write that failed removed its own temporary file; once the queue has stopped
      // (drained, or ended by its first error) nothing is half-done, so only a killed sync
      // leaves the marker behind.
      try? store.drainWrites()
      try? store.endWriting()
      store.discardUncommitted()
      throw error
    }
  }

  /// Starts fetching and decoding the page `request` names.
  private static func prefetch(_ request: SourceRequest, from source: any SpaceSource) -> Task<
    SyncPage, any Error
  > {
    Task {
      try await source.fetch(request) { bytes throws(SyncError) in try SyncPage(decoding: bytes) }
    }
  }

  private static func report(_ summary: SyncSummary) -> JSONValue {
    .object(
      JSONObject([
        "finishedAt": .string(Timestamp.now()),
        "initial": .bool(summary.initial),
        "pages": .number(String(summary.pages)),
        "upserted": .number(String(summary.upserted)),
        "deleted": .number(String(summary.deleted)),
        "documentsWritten": .number(String(summary.documentsWritten)),
        "documentsRemoved": .number(String(summary.documentsRemoved)),
      ]))
  }
}
