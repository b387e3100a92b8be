/// What a sync should do. Unset values come from the interrupted sync's checkpoint, then from
/// the manifest, then from the defaults.
public struct SyncOptions: Sendable, Hashable {
  public var space: String?
  public var environment: String?
  public var host: String?
  /// Mirror only these locales; `nil` keeps the mirror's current choice.
  public var locales: [String]?
  /// Go back to mirroring every locale of the space.
  public var allLocales: Bool
  /// Start a fresh initial sync and remove what is no longer in the space.
  public var full: Bool
  /// Pages between two commit points of a long sync.
  public var pagesPerCheckpoint: Int
  /// Threads that encode a page's documents (files are created by one background thread).
  /// Measured on 2 cores (20k entries): 2 encoders saved 2% wall time for 12% more CPU, so the
  /// default is 1.
  public var encoderThreads: Int
  /// Threads that create the files (each item's files on one thread). See the README for the
  /// measurements behind the default of 2.
  public var writerThreads: Int = 2
  /// How documents are made durable before a commit point records them.
  public var durability: Durability

  public init(
    space: String? = nil, environment: String? = nil, host: String? = nil, locales: [String]? = nil,
    allLocales: Bool = false, full: Bool = false, pagesPerCheckpoint: Int = 20,
    encoderThreads: Int = 1,
    durability: Durability = .syncPerCommit
  ) {
    self.space = space
    self.environment = environment
    self.host = host
    self.locales = locales
    self.allLocales = allLocales
    self.full = full
    self.pagesPerCheckpoint = pagesPerCheckpoint
    self.encoderThreads = encoderThreads
    self.durability = durability
  }

  /// The default environment.
  public static let defaultEnvironment = "master"
  /// The default host: the Content Delivery API.
  public static let defaultHost = "cdn.contentful.com"
}

/// Where a sync reads from, once options, checkpoint and manifest are reconciled.
public struct SyncTarget: Sendable, Hashable {
  public var space: String
  public var environment: String
  public var host: String
}

/// Something that happened during a sync, for progress display.
public enum SyncEvent: Sendable {
  /// An interrupted sync resumes after `pages` already committed pages.
  case resumed(pages: Int)
  /// Locales or content types changed; this many items were re-rendered offline.
  case rerendered(items: Int)
  /// A page was applied.
  case pageApplied(page: Int, items: Int, totalItems: Int)
  /// A `--full` sync removed this many items no longer in the space.
  case removedStale(items: Int)
}

/// What a finished sync did.
public struct SyncSummary: Sendable, Hashable {
  public var initial: Bool
  public var pages: Int
  public var upserted: Int
  public var deleted: Int
  public var documentsWritten: Int
  public var documentsRemoved: Int
  public var rerendered: Int
  public var staleRemoved: Int
  public var locales: [String]
}

/// How a sync makes the files it wrote durable before it records a commit point.
public enum Durability: String, Sendable, Hashable, CaseIterable {
  /// One `syncfs(2)` per commit point (every 20 pages, and at the end): the default.
  case syncPerCommit = "syncfs"
  /// An `fsync(2)` on every file before it is renamed into place, plus the commit-point flush.
  case fsyncEachFile = "fsync"
  /// No flush at all, for mirrors that are thrown away after use (a CI build's). The commit
  /// points keep their order, so a killed process is still harmless: everything it wrote is in
  /// the kernel's page cache, and a rerun resumes as usual. A power loss or a kernel crash is
  /// not: the manifest's token may then name pages whose files never reached the disk, and the
  /// mirror is only repaired by `sync --full`.
  case unflushed = "none"
}
