import ContentfulMirror
import MirrorTestSupport

/// Serves a ``SyntheticSpace`` over loopback HTTP with the CDA's sync paging (100 items a page),
/// gzip-compressed as the CDA sends it. After the initial sync (token `s1`) one delta of
/// changed entries is available (token `s1` → `s2`), then nothing new.
final class SpaceServer: @unchecked Sendable {
  let server: LoopbackHTTPServer
  let pageCount: Int
  let payloadBytes: Int
  /// The initial sync's pages as JSON text, for the JSON-layer comparison.
  let uncompressedPages: [[UInt8]]

  init(space: inout SyntheticSpace, deltaChanges: Int) throws {
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
    let pages = stride(from: 0, to: items.count, by: 100).map {
      items[$0..<min($0 + 100, items.count)]
    }
    var plain: [[UInt8]] = []
    for (index, slice) in pages.enumerated() {
      let last = index == pages.count - 1
      let bytes = page(slice, next: last ? "s1" : "p\(index + 1)", final: last)
      plain.append(bytes)
      store(index == 0 ? "initial" : "p\(index)", bytes)
    }
    uncompressedPages = plain
    let delta = space.changedEntries(deltaChanges)
    store("s1", page(delta[...], next: "s2", final: true))
    store("s2", page([], next: "s2", final: true))
    store("locales", space.localesJSON)
    store("content_types", space.contentTypesJSON)
    pageCount = pages.count
    payloadBytes = payload
    let served = responses
    server = try LoopbackHTTPServer { request in
      let key: String
      if request.path.hasSuffix("/sync") {
        key = request.query["sync_token"] ?? "initial"
      } else {
        key = String(request.path.split(separator: "/").last ?? "")
      }
      guard let body = served[key] else { return .json(404, Array("{}".utf8)) }
      return .json(200, body, headers: ["Content-Encoding": "gzip"])
    }
  }

  var baseURL: String { server.baseURL }
}
