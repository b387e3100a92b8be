import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

/// End-to-end syncs over real HTTP on 127.0.0.1 against a server replaying recorded responses.
@Suite struct SyncOverHTTPTests {
  static let token = "CFPAT-test-secret-0123456789abcdefghij"
  static let fastRetries = RetryPolicy(
    maximumAttempts: 4, baseDelay: .milliseconds(10), maximumDelay: .milliseconds(50),
    maximumRateLimitWait: .seconds(2), totalWaitBudget: .seconds(10))

  let recording: TemporaryDirectory
  let server: RecordedSpaceServer
  let mirror: TemporaryDirectory

  init() throws {
    recording = try TemporaryDirectory("recording")
    try FileManager.default.removeItem(atPath: recording.path)
    try RepositoryPaths.copySampleSpace(to: recording.path)
    server = try RecordedSpaceServer(directory: recording.path, accessToken: Self.token)
    mirror = try TemporaryDirectory("mirror")
  }

  func client(retries: RetryPolicy = fastRetries) -> CDAClient {
    CDAClient(
      configuration: .init(host: server.baseURL, space: "mirrorsample01", environment: "master"),
      accessToken: Self.token, retryPolicy: retries)
  }

  @discardableResult
  func sync(_ options: SyncOptions = SyncOptions(), retries: RetryPolicy = fastRetries) async throws
    -> SyncSummary
  {
    var options = options
    if options.space == nil { options.space = "mirrorsample01" }
    options.host = server.baseURL
    return try await MirrorSync(directory: mirror.path).run(
      options, source: client(retries: retries))
  }

  /// A second mirror, synced `syncs` times from `source` with default options, to compare with.
  func referenceMirror(_ label: String, syncs: Int = 1, source: any SpaceSource) async throws
    -> TemporaryDirectory
  {
    let directory = try TemporaryDirectory(label)
    let options = SyncOptions(space: "mirrorsample01", host: server.baseURL)
    for _ in 0..<syncs {
      _ = try await MirrorSync(directory: directory.path).run(options, source: source)
    }
    return directory
  }

  func document(_ relative: String) throws -> JSONValue {
    try JSONReader().read(
      Array(try Data(contentsOf: URL(fileURLWithPath: mirror.appending(relative)))))
  }

  func exists(_ relative: String) -> Bool {
    FileManager.default.fileExists(atPath: mirror.appending(relative))
  }

  @Test func initialSyncFollowsEveryPageAndStoresTheNextSyncToken() async throws {
    let summary = try await sync()
    #expect(summary.initial && summary.pages == 3 && summary.upserted == 20)
    let manifest = try #require(try document("manifest.json").objectValue)
    #expect(manifest["syncToken"] == "delta-1")
    #expect(exists("entries/post/old-news/fr-FR.json"))
    #expect(exists("assets/coast-hero/de-AT.json"))
    let syncRequests = server.requests.filter { $0.path.hasSuffix("/sync") }
    #expect(
      syncRequests.map(\.query) == [
        ["initial": "true"], ["sync_token": "initial-p2"], ["sync_token": "initial-p3"],
      ])
    #expect(server.requests.allSatisfy { $0.headers["authorization"] == "Bearer \(Self.token)" })
  }

  @Test func responsesArriveGzippedAndAreDecoded() async throws {
    try await sync()
    #expect(server.gzippedResponses == server.requests.count)
    #expect(
      try document("entries/post/night-market/en-US.json")["fields"]?["title"]
        == "A night market guide")
  }

  @Test func deltaAppliesUpdatesAdditionsAndDeletions() async throws {
    try await sync()
    let delta = try await sync()
    #expect(!delta.initial && delta.upserted == 5 && delta.deleted == 2)
    // An unpublished entry and a deleted asset lose every locale file and their directories.
    #expect(!exists("entries/post/old-news"))
    #expect(!exists("assets/coast-hero"))
    #expect(!exists(".mirror/items/entries/old-news.json"))
    // A value added in a non-default locale, and its fallback child following it.
    #expect(try document("entries/category/hiking/fr-FR.json")["fields"]?["title"] == "Randonnée")
    #expect(
      try document("entries/post/night-market/de-AT.json")["fields"]?["summary"]
        == "Was man nach Einbruch der Dunkelheit isst.")
    // A new entry linking to an existing one shows in the reverse index.
    let shard = IndexStore.shardName(IndexStore.shard(of: ItemKey(.entry, "alps-traverse")))
    let referrers = try document("index/links/\(shard).json")["Entry:alps-traverse"]?["linkedFrom"]
    #expect(referrers?.arrayValue?.contains("Entry:summer-huts") == true)
    // A link to the deleted asset is now dangling.
    let assetShard = IndexStore.shardName(IndexStore.shard(of: ItemKey(.asset, "coast-hero")))
    #expect(try document("index/links/\(assetShard).json")["Asset:coast-hero"]?["dangling"] == true)
    let third = try await sync()
    #expect(third.upserted == 0 && third.deleted == 0 && third.documentsWritten == 0)
  }

  @Test func syncOverHTTPWritesTheSameTreeAsTheRecordedSource() async throws {
    try await sync()
    try await sync()
    let viaRecording = try await referenceMirror(
      "via-recording", syncs: 2, source: RecordedSpace(directory: recording.path))
    #expect(
      DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: viaRecording.path)) == [])
  }

  @Test func anInterruptedInitialSyncResumesFromItsLastCommittedPage() async throws {
    server.inject { request, _ in
      request.query["sync_token"] == "initial-p3" ? .drop : nil
    }
    await #expect(throws: SyncError.self) {
      try await sync(SyncOptions(pagesPerCheckpoint: 1))
    }
    #expect(!exists("manifest.json"))
    #expect(exists(".mirror/checkpoint.json"))
    server.inject(nil)
    let before = server.requests.count
    let resumed = try await sync(SyncOptions(pagesPerCheckpoint: 1))
    let after = server.requests.dropFirst(before).filter { $0.path.hasSuffix("/sync") }
    #expect(after.map(\.query) == [["sync_token": "initial-p3"]])
    #expect(resumed.initial && resumed.pages == 3)
    #expect(!exists(".mirror/checkpoint.json"))
    let clean = try await referenceMirror("clean", source: RecordedSpace(directory: recording.path))
    #expect(DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: clean.path)) == [])
  }

  @Test func aResumedInitialSyncRemovesWhatAKillCutShort() async throws {
    server.inject { request, _ in
      request.query["sync_token"] == "initial-p3" ? .drop : nil
    }
    await #expect(throws: SyncError.self) {
      try await sync(SyncOptions(pagesPerCheckpoint: 1))
    }
    // What a first sync killed while writing files in place can leave: snapshots and documents
    // cut short, of items the resumed pages bring again (travel, hiking) and of items the space
    // no longer has.
    let cutShort: [String: String] = [
      ".mirror/items/entries/travel.json": #"{"fields":{"name":{"en-US":"Tr"#,
      "entries/category/travel/en-US.json": #"{"fie"#,
      "entries/category/hiking/de-DE.json": "",
      ".mirror/items/entries/gone.json": #"{"sys":{"id":"gone","#,
      "entries/category/gone/en-US.json": "{}",
      "entries/removedType/orphan/en-US.json": #"{"fields":{}}"#,
      ".mirror/items/assets/goneAsset.json": "",
      "assets/goneAsset/en-US.json": #"{"#,
    ]
    for (relative, text) in cutShort {
      let path = mirror.appending(relative)
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
    server.inject(nil)
    let resumed = try await sync(SyncOptions(pagesPerCheckpoint: 1))
    #expect(resumed.initial && resumed.pages == 3)
    let clean = try await referenceMirror("clean", source: RecordedSpace(directory: recording.path))
    #expect(DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: clean.path)) == [])
  }

  @Test func rateLimitedRequestsWaitForTheResetAndSucceed() async throws {
    server.inject { request, number in
      number < 2 ? .json(429, [], headers: ["X-Contentful-RateLimit-Reset": "0"]) : nil
    }
    try await sync()
    #expect(exists("manifest.json"))
  }

  @Test func aRateLimitResetBeyondTheCapFailsWithAClearMessage() async throws {
    server.inject { _, _ in .json(429, [], headers: ["X-Contentful-RateLimit-Reset": "3600"]) }
    await #expect {
      try await sync()
    } throws: { error in
      guard let error = error as? SyncError else { return false }
      return error.code == .rateLimited && error.message.contains("3600")
    }
  }

  @Test func serverErrorsAreRetriedThenSucceed() async throws {
    server.inject { request, number in
      number % 2 == 0 && request.path.hasSuffix("/sync") ? .json(503, []) : nil
    }
    let summary = try await sync()
    #expect(summary.pages == 3)
  }

  @Test func persistentServerErrorsFailAfterBoundedRetriesLeavingTheMirrorIntact() async throws {
    try await sync()
    let before = DirectoryTree.mirror(at: mirror.path)
    server.inject { request, _ in request.path.hasSuffix("/sync") ? .json(500, []) : nil }
    let start = server.requests.count
    await #expect {
      try await sync()
    } throws: { error in
      (error as? SyncError)?.code == .unavailable
    }
    #expect(server.requests.count - start == 2 + Self.fastRetries.maximumAttempts)
    #expect(DirectoryTree.mirror(at: mirror.path) == before)
  }

  @Test func retriesStopWhenTheirWaitingBudgetIsSpentEvenWithAttemptsLeft() async throws {
    server.inject { request, _ in request.path.hasSuffix("/sync") ? .json(503, []) : nil }
    let patient = RetryPolicy(
      maximumAttempts: 1_000, baseDelay: .milliseconds(40), maximumDelay: .milliseconds(40),
      maximumRateLimitWait: .seconds(1), totalWaitBudget: .milliseconds(300))
    await #expect {
      try await sync(retries: patient)
    } throws: { error in
      (error as? SyncError)?.code == .unavailable
    }
    let attempts = server.requests.filter { $0.path.hasSuffix("/sync") }.count
    // Each wait is 20–40 ms (jitter), so 300 ms of budget allows 8 to 16 attempts, never 1,000.
    #expect((8...16).contains(attempts), "\(attempts) attempts")
  }

  @Test func aRejectedSyncTokenTellsTheUserToRunFullAndFullRecovers() async throws {
    try await sync()
    try await sync()  // now at delta-2, which includes summer-huts and lacks old-news
    try FileManager.default.removeItem(atPath: recording.appending("sync/delta-2.json"))
    await #expect {
      try await sync()
    } throws: { error in
      guard let error = error as? SyncError else { return false }
      return error.code == .tokenRejected && error.message.contains("sync --full")
    }
    let full = try await sync(SyncOptions(full: true))
    #expect(full.initial && full.staleRemoved == 1)
    // Same state as a fresh sync; only the journal (history) differs.
    #expect(!exists("entries/post/summer-huts"))
    #expect(exists("entries/post/old-news/en-US.json"))
    let clean = try await referenceMirror("clean", source: RecordedSpace(directory: recording.path))
    #expect(
      DirectoryTree.content(at: mirror.path).differences(from: .content(at: clean.path)) == [])
  }

  @Test func aSecondSyncOnTheSameMirrorIsRefusedWhileOneRuns() async throws {
    server.inject { request, _ in
      if request.path.hasSuffix("/locales") { Thread.sleep(forTimeInterval: 2) }
      return nil
    }
    async let first = sync()
    // Wait until the first sync holds the lock (it has asked for the locales), however slow the
    // machine is, rather than guessing a delay.
    for _ in 0..<200 where !server.requests.contains(where: { $0.path.hasSuffix("/locales") }) {
      try await Task.sleep(for: .milliseconds(50))
    }
    await #expect {
      try await sync()
    } throws: { error in
      guard let error = error as? MirrorError else { return false }
      return error.code == .locked && error.message.contains("another contentful-mirror process")
    }
    let summary = try await first
    #expect(summary.pages == 3)
  }

  @Test func theAccessTokenIsNeverWrittenToTheMirror() async throws {
    try await sync()
    try await sync()
    for (path, bytes) in DirectoryTree(root: mirror.path).files {
      #expect(
        !String(decoding: bytes, as: UTF8.self).contains(Self.token), "token found in \(path)")
    }
  }

  @Test func anUnknownTokenIsRefusedWithAdviceAndWithoutEchoingIt() async throws {
    let wrong = CDAClient(
      configuration: .init(host: server.baseURL, space: "mirrorsample01", environment: "master"),
      accessToken: "wrong-token-value", retryPolicy: Self.fastRetries)
    await #expect {
      try await MirrorSync(directory: mirror.path).run(
        SyncOptions(space: "mirrorsample01", host: server.baseURL), source: wrong)
    } throws: { error in
      guard let error = error as? SyncError else { return false }
      return error.code == .unauthorized && error.message.contains("CONTENTFUL_ACCESS_TOKEN")
        && !error.message.contains("wrong-token-value")
    }
  }

  @Test func theLocaleOptionLimitsTheMirrorAndAllLocalesRestoresItOffline() async throws {
    try await sync(SyncOptions(locales: ["de-AT"]))
    #expect(exists("entries/post/alps-traverse/de-AT.json"))
    #expect(!exists("entries/post/alps-traverse/en-US.json"))
    let widened = try await sync(SyncOptions(allLocales: true))
    #expect(widened.rerendered == 20)
    #expect(try document("entries/post/alps-traverse/fr-FR.json")["sys"]?["locale"] == "fr-FR")
    let narrowed = try await sync(SyncOptions(locales: ["en-US"]))
    #expect(narrowed.rerendered == 19)  // 20 initial + 1 created - 2 deleted by the delta
    #expect(!exists("entries/post/alps-traverse/de-AT.json"))
  }

  @Test func aChangedFallbackReRendersAffectedDocumentsWithoutResendingItems() async throws {
    try await sync()
    #expect(try document("entries/post/coastal-path/fr-FR.json")["fields"]?["title"] == nil)
    // The space gives fr-FR a fallback to en-US; the sync API resends nothing for that.
    let localesPath = recording.appending("locales.json")
    var locales = try #require(
      try JSONReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: localesPath))))
        .objectValue)
    var items = try #require(locales["items"]?.arrayValue)
    let french = try #require(items.firstIndex { $0["code"] == "fr-FR" })
    var frenchLocale = try #require(items[french].objectValue)
    frenchLocale["fallbackCode"] = "en-US"
    items[french] = .object(frenchLocale)
    locales["items"] = .array(items)
    try Data(CanonicalJSON.encode(.object(locales))).write(to: URL(fileURLWithPath: localesPath))
    let summary = try await sync()
    #expect(summary.rerendered == 20)
    #expect(
      try document("entries/post/coastal-path/fr-FR.json")["fields"]?["title"]
        == "Walking the coastal path")
  }

  @Test func hostileIdsFailTheSyncNamingTheItemAndWriteNothingOutsideTheMirror() async throws {
    try await sync()
    let before = DirectoryTree.mirror(at: mirror.path)
    let outside = try TemporaryDirectory("outside")
    let evil = "../../../../\(outside.path.split(separator: "/").last ?? "x")/pwned"
    let page = """
      {"sys": {"type": "Array"}, "items": [
        {"sys": {"type": "Entry", "id": "fine", "contentType": {"sys": {"id": "post"}}}, "fields": {}},
        {"sys": {"type": "Entry", "id": "\(evil)", "contentType": {"sys": {"id": "post"}}}, "fields": {}}],
       "nextSyncUrl": "https://cdn.contentful.com/spaces/mirrorsample01/sync?sync_token=delta-2"}
      """
    try page.write(
      toFile: recording.appending("sync/delta-1.json"), atomically: true, encoding: .utf8)
    await #expect {
      try await sync()
    } throws: { error in
      guard let error = error as? SyncError else { return false }
      return error.code == .invalidIdentifier && error.message.contains("pwned")
    }
    #expect(DirectoryTree.mirror(at: mirror.path) == before)
    #expect(DirectoryTree(root: outside.path).files.isEmpty)
  }

  @Test func aSymlinkPlantedInTheMirrorIsNotFollowed() async throws {
    try await sync()
    let elsewhere = try TemporaryDirectory("elsewhere")
    try FileManager.default.moveItem(
      atPath: mirror.appending("entries/post"), toPath: mirror.appending("post-moved"))
    try FileManager.default.createSymbolicLink(
      atPath: mirror.appending("entries/post"), withDestinationPath: elsewhere.path)
    await #expect {
      try await sync()
    } throws: { error in
      (error as? MirrorError)?.code == .unsafePath
    }
    #expect(DirectoryTree(root: elsewhere.path).files.isEmpty)
  }

  @Test func aDamagedManifestGivesRecoveryAdviceAndFullRebuilds() async throws {
    try await sync()
    try "{ not json".write(
      toFile: mirror.appending("manifest.json"), atomically: true, encoding: .utf8)
    await #expect {
      try await sync()
    } throws: { error in
      guard let error = error as? MirrorError else { return false }
      return error.code == .corrupt && error.message.contains("sync --full")
    }
    let rebuilt = try await sync(SyncOptions(full: true))
    #expect(rebuilt.initial && rebuilt.upserted == 20)
    #expect(try document("manifest.json")["syncToken"] == "delta-1")
  }

  @Test func anInterruptedDeltaResumesAndItsJournalRecordsEveryPage() async throws {
    try await sync()
    // Split the recorded delta over two pages, and drop the connection on the second.
    let deltaPath = recording.appending("sync/delta-1.json")
    var delta = try #require(
      try JSONReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: deltaPath))))
        .objectValue)
    let items = try #require(delta["items"]?.arrayValue)
    var second = delta
    delta["items"] = .array(Array(items.prefix(3)))
    delta["nextSyncUrl"] = nil
    delta["nextPageUrl"] =
      "https://cdn.contentful.com/spaces/mirrorsample01/environments/master/sync?sync_token=delta-1b"
    second["items"] = .array(Array(items.dropFirst(3)))
    try Data(CanonicalJSON.encode(.object(delta))).write(to: URL(fileURLWithPath: deltaPath))
    try Data(CanonicalJSON.encode(.object(second))).write(
      to: URL(fileURLWithPath: recording.appending("sync/delta-1b.json")))
    server.inject { request, _ in request.query["sync_token"] == "delta-1b" ? .drop : nil }
    await #expect(throws: SyncError.self) { try await sync(SyncOptions(pagesPerCheckpoint: 1)) }
    #expect(try document("manifest.json")["syncToken"] == "delta-1")
    server.inject(nil)
    let resumed = try await sync(SyncOptions(pagesPerCheckpoint: 1))
    #expect(resumed.upserted + resumed.deleted == 4)  // the second page only
    #expect(try document("manifest.json")["syncToken"] == "delta-2")
    let changes = try SyncJournal(layout: MirrorLayout(root: mirror.path)).changes(
      since: "delta-1", currentToken: "delta-2", fileSystem: FileSystem())
    #expect(changes?.upserted.count == 5 && changes?.deleted.count == 2)
  }

  @Test func anItemSentInSeveralPagesIsMirroredAsItsLastPageSentIt() async throws {
    // An item that changes while the Sync API pages can come again in a later page. A page's
    // files may still be being written when the next page is queued, so the later copy must
    // still win. Here every page sends the same items, each with a higher revision, rotated so
    // that the item a page ends with begins the next: the case where, without the store's
    // check, a writer done with one page could take the item while another still writes it.
    // (Whether the writers overlap at all depends on timing; FileWriteQueueTests pins that.)
    let directory = recording.appending("sync")
    let first = try JSONReader().read(
      Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/initial.json"))))
    let items = try #require(first["items"]?.arrayValue)
    let pages = 40
    let base = "https://cdn.contentful.com/spaces/mirrorsample01/environments/master/sync"
    for page in 0..<pages {
      let rotated = items.indices.map {
        items[(items.count - page % items.count + $0) % items.count]
      }
      let revised = try rotated.map { item in
        var object = try #require(item.objectValue)
        var sys = try #require(object["sys"]?.objectValue)
        sys["revision"] = .number(String(100 + page))
        object["sys"] = .object(sys)
        return JSONValue.object(object)
      }
      let last = page == pages - 1
      let next = "\(base)?sync_token=" + (last ? "repeated-done" : "repeated-\(page + 1)")
      let body = JSONValue.object(
        JSONObject([
          "sys": .object(JSONObject(["type": "Array"])), "items": .array(revised),
          (last ? "nextSyncUrl" : "nextPageUrl"): .string(next),
        ]))
      let name = page == 0 ? "initial.json" : "repeated-\(page).json"
      try Data(CanonicalJSON.encode(body)).write(
        to: URL(fileURLWithPath: directory + "/" + name))
    }
    let summary = try await sync()
    #expect(summary.pages == pages)
    var documents = 0
    for tree in ["entries", "assets"] {
      let root = mirror.appending(tree)
      let enumerator = try #require(FileManager.default.enumerator(atPath: root))
      for case let relative as String in enumerator where relative.hasSuffix(".json") {
        let document = try JSONReader().read(
          Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))))
        #expect(document["sys"]?["revision"] == .number(String(100 + pages - 1)), "\(relative)")
        documents += 1
      }
    }
    #expect(documents == items.count * 4)
  }

  @Test func fourWriterThreadsGiveTheSameMirror() async throws {
    var options = SyncOptions(encoderThreads: 2)
    options.writerThreads = 4
    try await sync(options)
    try await sync(options)
    let other = try await referenceMirror("one-writer", syncs: 2, source: client())
    #expect(DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: other.path)) == [])
  }

  @Test func flushingEveryFileGivesTheSameMirror() async throws {
    try await sync(SyncOptions(durability: .fsyncEachFile))
    try await sync(SyncOptions(durability: .fsyncEachFile))
    let other = try await referenceMirror("syncfs", syncs: 2, source: client())
    #expect(DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: other.path)) == [])
  }

  @Test func skippingEveryFlushGivesTheSameMirror() async throws {
    try await sync(SyncOptions(durability: .unflushed))
    try await sync(SyncOptions(durability: .unflushed))
    let other = try await referenceMirror("flushed", syncs: 2, source: client())
    #expect(DirectoryTree.mirror(at: mirror.path).differences(from: .mirror(at: other.path)) == [])
  }
}
