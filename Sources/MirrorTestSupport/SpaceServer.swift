import ContentfulMirror
import Foundation

/// Serves a ``SyntheticSpace`` over loopback HTTP with the CDA's sync paging, gzip-compressed as
/// the CDA sends it. After the initial sync (token `s1`) one delta is available (token `s1` →
/// `s2`, paged like the initial sync: changed entries, then deleted ones), then nothing new.
public final class SpaceServer: @unchecked Sendable {
  public let server: LoopbackHTTPServer
  /// Pages of the initial sync.
  public let pageCount: Int
  /// Uncompressed bytes of every response.
  public let payloadBytes: Int
  /// The initial sync's pages as JSON text, for the JSON-layer comparison.
  public let uncompressedPages: [[UInt8]]
  /// The delta's pages (and the empty one after it) as JSON text, each with the token that
  /// leads to it, for recording the space.
  public let uncompressedDeltaPages: [(token: String, bytes: [UInt8])]
  private let latency: Latency

  /// - Parameters:
  ///   - space: The space to serve; its generator advances.
  ///   - deltaChanges: Entries the delta changes.
  ///   - deltaDeletions: Entries the delta deletes.
  ///   - pageSize: Items per sync page (the CDA sends 100).
  public init(
    space: inout SyntheticSpace, deltaChanges: Int, deltaDeletions: Int = 0, pageSize: Int = 100
  ) throws {
    let base =
      "https://cdn.contentful.com/spaces/\(SyntheticSpace.spaceID)/environments/master/sync?sync_token="
    let items = space.items()
    var responses: [String: [UInt8]] = [:]
    var payload = 0
    func store(_ key: String, _ bytes: [UInt8]) {
      payload += bytes.count
      responses[key] = GzipCompressor.compress(bytes) ?? bytes
    }
    func page(_ items: ArraySlice<JSONValue>, next: String, final: Bool) -> [UInt8] {
      CanonicalJSON.encodeCompact(
        .object(
          JSONObject([
            "sys": .object(JSONObject(["type": "Array"])), "items": .array(Array(items)),
            (final ? "nextSyncUrl" : "nextPageUrl"): .string(base + next),
          ])))
    }
    let pages = stride(from: 0, to: items.count, by: pageSize).map {
      items[$0..<min($0 + pageSize, items.count)]
    }
    var plain: [[UInt8]] = []
    for (index, slice) in pages.enumerated() {
      let last = index == pages.count - 1
      let bytes = page(slice, next: last ? "s1" : "p\(index + 1)", final: last)
      plain.append(bytes)
      store(index == 0 ? "initial" : "p\(index)", bytes)
    }
    uncompressedPages = plain
    let deletions = space.deletedEntries(deltaDeletions)
    let deleted = Set(deletions.compactMap { $0["sys"]?["id"]?.stringValue })
    let changes = space.changedEntries(deltaChanges).filter {
      !deleted.contains($0["sys"]?["id"]?.stringValue ?? "")
    }
    let delta = changes + deletions
    let deltaPages = stride(from: 0, to: max(delta.count, 1), by: pageSize).map {
      delta[$0..<min($0 + pageSize, delta.count)]
    }
    var plainDelta: [(token: String, bytes: [UInt8])] = []
    for (index, slice) in deltaPages.enumerated() {
      let last = index == deltaPages.count - 1
      plainDelta.append(
        (
          index == 0 ? "s1" : "d\(index)",
          page(slice, next: last ? "s2" : "d\(index + 1)", final: last)
        ))
    }
    plainDelta.append(("s2", page([], next: "s2", final: true)))
    for (token, bytes) in plainDelta { store(token, bytes) }
    uncompressedDeltaPages = plainDelta
    store("locales", space.localesJSON)
    store("content_types", space.contentTypesJSON)
    pageCount = pages.count
    payloadBytes = payload
    let served = responses
    let latency = Latency()
    self.latency = latency
    server = try LoopbackHTTPServer { request in
      let key: String
      if request.path.hasSuffix("/sync") {
        key = request.query["sync_token"] ?? "initial"
      } else {
        key = String(request.path.split(separator: "/").last ?? "")
      }
      guard let body = served[key] else { return .json(404, Array("{}".utf8)) }
      let reply = LoopbackHTTPServer.Response.json(200, body, headers: ["Content-Encoding": "gzip"])
      let delay = latency.seconds
      return delay > 0 ? .delayed(seconds: delay, reply) : reply
    }
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { server.baseURL }

  /// Delays every answer by `seconds`, so a sync takes long enough to be interrupted anywhere.
  public func delayEveryResponse(by seconds: Double) { latency.seconds = seconds }

  private final class Latency: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0.0

    var seconds: Double {
      get { lock.withLock { value } }
      set { lock.withLock { value = newValue } }
    }
  }
}
