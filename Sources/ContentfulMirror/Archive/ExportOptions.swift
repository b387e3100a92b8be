/// What `export` writes.
public struct ExportOptions: Sendable, Hashable {
  /// How documents are arranged inside the archive.
  public enum Layout: String, Sendable, CaseIterable {
    /// The mirror's own layout (`entries/<type>/<id>/<locale>.json`); restorable when unfiltered.
    case mirror
    /// `<locale>/entries/<type>/<id>.json` and `<locale>/assets/<id>.json`, for a site
    /// generator's data directory.
    case byLocale = "by-locale"
  }

  public var format: ArchiveFormat
  /// Compression level; `nil` is the compressor's default.
  public var level: Int?
  /// Only these locales (`nil`: every mirrored locale).
  public var locales: [String]?
  /// Only entries of these content types (`nil`: all); assets are always included.
  public var contentTypes: [String]?
  public var layout: Layout
  /// Only what changed since this sync token (a delta bundle with `deleted.json`).
  public var since: String?
  /// The mtime of every member (`SOURCE_DATE_EPOCH`); `nil` derives it from the newest
  /// `sys.updatedAt` of the items included, never from the clock.
  public var sourceDateEpoch: Int?

  public init(
    format: ArchiveFormat, level: Int? = nil, locales: [String]? = nil,
    contentTypes: [String]? = nil,
    layout: Layout = .mirror, since: String? = nil, sourceDateEpoch: Int? = nil
  ) {
    self.format = format
    self.level = level
    self.locales = locales
    self.contentTypes = contentTypes
    self.layout = layout
    self.since = since
    self.sourceDateEpoch = sourceDateEpoch
  }

  /// Whether the archive holds the whole mirror in its own layout, and so can be restored.
  public var isComplete: Bool {
    locales == nil && contentTypes == nil && layout == .mirror && since == nil
  }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Hashable {
  /// Archive members written.
  public var members: Int
  /// Items (entries and assets) included.
  public var items: Int
  /// Items listed in `deleted.json` (delta bundles).
  public var deleted: Int
  /// The mtime given to every member.
  public var modificationTime: Int
}
