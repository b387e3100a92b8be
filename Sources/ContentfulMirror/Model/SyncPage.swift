/// One page of a sync response: its items and where the sync goes next.
public struct SyncPage: Sendable {
  /// What follows this page.
  public enum Continuation: Sendable, Hashable {
    /// More pages: request this token next.
    case nextPage(token: String)
    /// The sync is complete; this token starts the next delta sync.
    case nextSync(token: String)
  }

  public var items: [SyncItem]
  public var continuation: Continuation

  public init(items: [SyncItem], continuation: Continuation) {
    self.items = items
    self.continuation = continuation
  }

  /// Decodes a page from the bytes of a sync response, validating every item before returning,
  /// so a bad item rejects the whole page before anything is written.
  ///
  /// - Throws: ``SyncError`` naming the offending item.
  public init(decoding bytes: [UInt8]) throws(SyncError) {
    let tape: JSONTape
    do {
      tape = try JSONTape(parsing: bytes)
    } catch {
      throw SyncError(
        .malformedResponse, "the sync response is not valid JSON (\(error))", cause: error)
    }
    (items, continuation) = try tape.withView { view throws(SyncError) in
      let root = JSONTape.root
      guard let list = view.member("items", of: root), view.kind(list) == .array else {
        throw SyncError(.malformedResponse, "the sync response has no items array")
      }
      var items: [SyncItem] = []
      items.reserveCapacity(Int(view.nodes[list].count))
      var seen = Set<ItemKey>()
      var node = list + 1
      while node < view.next(list) {
        let item = try Self.decodeItem(node, of: tape, view: view)
        guard seen.insert(item.key).inserted else {
          throw SyncError(
            .invalidResponse, "the sync page lists \(item.key) twice; the page was rejected")
        }
        items.append(item)
        node = view.next(node)
      }
      let continuation: Continuation
      if let url = view.member("nextPageUrl", of: root).flatMap(view.string) {
        continuation = .nextPage(token: try Self.token(in: url))
      } else if let url = view.member("nextSyncUrl", of: root).flatMap(view.string) {
        continuation = .nextSync(token: try Self.token(in: url))
      } else {
        throw SyncError(
          .malformedResponse, "the sync response has neither nextPageUrl nor nextSyncUrl")
      }
      return (items, continuation)
    }
  }

  private static func decodeItem(_ node: Int, of tape: JSONTape, view: JSONTape.View)
    throws(SyncError) -> SyncItem
  {
    guard let sys = view.object("sys", of: node), let typeNode = view.member("type", of: sys),
      let type = view.string(typeNode)
    else {
      throw SyncError(.invalidResponse, "a sync item has no sys.type")
    }
    switch type {
    case "Entry": return .upsert(try SyncedItem(tape: tape, view: view, node: node, kind: .entry))
    case "Asset": return .upsert(try SyncedItem(tape: tape, view: view, node: node, kind: .asset))
    case "DeletedEntry", "DeletedAsset":
      let kind: ItemKind = type == "DeletedEntry" ? .entry : .asset
      guard let id = view.member("id", of: sys).flatMap(view.string) else {
        throw SyncError(.invalidResponse, "a \(type) item has no sys.id")
      }
      try Identifier.validate(id, as: kind == .entry ? .entryID : .assetID, in: "a \(type) item")
      return .deletion(ItemKey(kind, id))
    default:
      throw SyncError(
        .invalidResponse, "a sync item has the unknown type \(Identifier.quoted(type))")
    }
  }

  /// The `sync_token` query parameter of a next-page or next-sync URL. Only the token is used:
  /// the next request is built for the configured host, whatever host the URL names.
  static func token(in url: String) throws(SyncError) -> String {
    guard let query = url.split(separator: "?", maxSplits: 1).last, url.contains("?") else {
      throw SyncError(.invalidResponse, "the next sync URL has no sync_token")
    }
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0] == "sync_token" else { continue }
      let token = String(parts[1]).removingPercentEncodingIfNeeded()
      guard !token.isEmpty, token.utf8.count <= 8192,
        token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
      else { break }
      return token
    }
    throw SyncError(.invalidResponse, "the next sync URL has no usable sync_token")
  }
}

extension String {
  /// Decodes `%XX` escapes; returns the text unchanged when it has none or they are malformed.
  fileprivate func removingPercentEncodingIfNeeded() -> String {
    guard contains("%") else { return self }
    var bytes: [UInt8] = []
    var iterator = utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next(), let low = iterator.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      else { return self }
      bytes.append(value)
    }
    return String(validating: bytes, as: UTF8.self) ?? self
  }
}
