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
  /// For a delta: the token it started from, and what it changed so far (for the journal).
  var fromToken: String? = nil
  var upserted: [ItemKey] = []
  var deleted: [SyncJournal.Removal] = []

  /// For a delta, the journal record of what it changed so far (up to ``nextPageToken``).
  var journalRecord: SyncJournal.Record? {
    fromToken.map {
      SyncJournal.Record(
        fromToken: $0, toToken: nextPageToken, upserted: upserted, deleted: deleted)
    }
  }

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
    if let record = journalRecord {
      var journal = SyncJournal.json(record).objectValue ?? JSONObject()
      journal["to"] = nil
      object["journal"] = .object(journal)
    }
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
    if let journal = value["journal"]?.objectValue {
      var withTo = journal
      withTo["to"] = .string(token)
      if let record = SyncJournal.record(from: .object(withTo)) {
        fromToken = record.fromToken
        upserted = record.upserted
        deleted = record.deleted
      }
    }
  }
}
