/// The record of a sync in progress: where to resume, written after each commit point.
///
/// It lives in `.mirror/checkpoint.json` and holds no access token. An interrupted sync resumes
/// from ``nextPageToken``; everything before it is already on disk and indexed.
struct Checkpoint: Hashable {
  /// The sync this checkpoint belongs to started from scratch (initial/full) or from a token.
  var isInitial: Bool
  /// Whether the sync replaces the whole mirror (`--full`): stale items are removed at its end.
  var isFull: Bool
  var space: String
  var environment: String
  var host: String
  var localeFilter: [String]?
  /// The page token to request next.
  var nextPageToken: String
  /// Pages and items applied so far in this sync.
  var pages: Int
  var items: Int

  var json: JSONValue {
    var object = JSONObject()
    object["format"] = 1
    object["initial"] = .bool(isInitial)
    object["full"] = .bool(isFull)
    object["space"] = .string(space)
    object["environment"] = .string(environment)
    object["host"] = .string(host)
    if let localeFilter { object["localeFilter"] = .array(localeFilter.map(JSONValue.string)) }
    object["nextPageToken"] = .string(nextPageToken)
    object["pages"] = .number(String(pages))
    object["items"] = .number(String(items))
    return .object(object)
  }

  init(
    isInitial: Bool, isFull: Bool, space: String, environment: String, host: String,
    localeFilter: [String]?, nextPageToken: String, pages: Int, items: Int
  ) {
    self.isInitial = isInitial
    self.isFull = isFull
    self.space = space
    self.environment = environment
    self.host = host
    self.localeFilter = localeFilter
    self.nextPageToken = nextPageToken
    self.pages = pages
    self.items = items
  }

  /// Reads a checkpoint; `nil` when it is damaged (the sync then starts from the manifest).
  init?(json value: JSONValue) {
    guard value["format"]?.intValue == 1, let space = value["space"]?.stringValue,
      let environment = value["environment"]?.stringValue, let host = value["host"]?.stringValue,
      let token = value["nextPageToken"]?.stringValue
    else { return nil }
    self.isInitial = value["initial"] == .bool(true)
    self.isFull = value["full"] == .bool(true)
    self.space = space
    self.environment = environment
    self.host = host
    self.localeFilter = value["localeFilter"]?.arrayValue?.compactMap(\.stringValue)
    self.nextPageToken = token
    self.pages = value["pages"]?.intValue ?? 0
    self.items = value["items"]?.intValue ?? 0
  }
}
