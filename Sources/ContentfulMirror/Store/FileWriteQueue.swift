import Dispatch
import Synchronization

/// Writes files on background threads while the sync encodes the next page.
///
/// File creation is system time and encoding is user time; overlapping them is how a sync on
/// two cores approaches the file system's floor. Each writer thread has its own ``FileSystem``
/// cursor and takes a batch's items one at a time; every file of an item goes to the writer that
/// took it, so no two writers create the same item directory. Up to two batches (two pages) are
/// in flight, so a writer done with one page goes on with the next while the other finishes.
/// ``drain()`` is the barrier: it waits for every submitted write and reports the first
/// failure; the store calls it before anything that reads or removes files, before every
/// commit point, and before queuing an item the batch in flight also writes.
final class FileWriteQueue: Sendable {
  private let writers: [Writer]
  private let group = DispatchGroup()
  /// One slot per batch that may be queued or being written at once (see ``submit(_:)``).
  private let slots: DispatchSemaphore
  /// Set when a write fails: the writers skip everything queued after it.
  private let failed = Atomic(false)

  /// One writer thread and its cursor.
  private final class Writer: Sendable {
    let queue: DispatchQueue
    let state: Mutex<State>

    init(label: String, root: String) {
      queue = DispatchQueue(label: label)
      state = Mutex(State(fileSystem: FileSystem(trustingRoot: root), failure: nil))
    }
  }

  private struct State: Sendable {
    var fileSystem: FileSystem
    var failure: MirrorError?
  }

  /// Whether each file is flushed with its own `fsync` (see ``Durability``).
  private let flushEachFile: Bool

  /// - Parameter writers: Threads creating files (the sync passes ``SyncOptions/writerThreads``).
  /// - Parameter batches: How many ``submit(_:)`` batches may be queued or being written at
  ///   once; a further `submit` waits for the oldest to be written.
  init(root: String, durability: Durability = .syncPerCommit, writers: Int = 1, batches: Int = 2) {
    slots = DispatchSemaphore(value: max(batches, 1))
    self.writers = (0..<max(writers, 1)).map {
      Writer(label: "contentful-mirror.file-writer.\($0)", root: root)
    }
    flushEachFile = durability == .fsyncEachFile
  }

  /// A file to write, and how.
  struct File: Sendable {
    var path: String
    var bytes: [UInt8]
    /// Written straight to its path (``FileSystem/writeInPlace(_:to:flush:)``) instead of
    /// through a temporary file and a rename; see ``MirrorStore`` for when that is safe.
    var inPlace = false
  }

  /// Queues each item's files to be written in order (atomically unless a file says otherwise).
  ///
  /// The writers take the items one at a time, so one that waits on the disk (for an inode
  /// table block under writeback, say) does not leave another idle with its share still to do.
  /// When as many batches as the queue holds are still being written, this waits for the oldest:
  /// memory stays bounded. An earlier batch may still be being written, so a caller that queues
  /// a file that batch also writes must ``drain()`` first.
  func submit(_ items: [[File]]) {
    guard !items.isEmpty else { return }
    slots.wait()
    let active = writers.prefix(items.count)
    let batch = Batch(items: items, writers: active.count)
    let flush = flushEachFile
    for writer in active {
      writer.queue.async(group: group) { [self] in
        defer { if batch.writerFinished() { slots.signal() } }
        writer.state.withLock { state in
          guard !failed.load(ordering: .relaxed) else { return }
          do throws(MirrorError) {
            while let files = batch.next() {
              for file in files {
                if file.inPlace {
                  try state.fileSystem.writeInPlace(file.bytes, to: file.path, flush: flush)
                } else {
                  try state.fileSystem.writeAtomically(file.bytes, to: file.path, flush: flush)
                }
              }
            }
          } catch {
            state.failure = error
            failed.store(true, ordering: .relaxed)
            batch.abandon()
          }
        }
      }
    }
  }

  /// The items of one ``submit(_:)``, handed out one at a time.
  private final class Batch: Sendable {
    private let items: [[File]]
    private let cursor = Atomic(0)
    private let writersLeft: Atomic<Int>

    init(items: [[File]], writers: Int) {
      self.items = items
      writersLeft = Atomic(writers)
    }

    /// Records that a writer is done with the batch; `true` for the last one.
    func writerFinished() -> Bool {
      writersLeft.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }

    /// The files of the next item nobody has taken, or `nil` when all are taken.
    func next() -> [File]? {
      let index = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
      return index < items.count ? items[index] : nil
    }

    /// Hands out nothing more: a writer failed, and the batch is reported as failed.
    func abandon() {
      cursor.store(items.count, ordering: .relaxed)
    }
  }

  /// Waits until everything submitted is written.
  ///
  /// - Throws: The first ``MirrorError`` a write met (later writes were skipped).
  func drain() throws(MirrorError) {
    group.wait()
    try reportFailure()
  }

  /// Throws the ``MirrorError`` a write met, if one has, without waiting for the others.
  func reportFailure() throws(MirrorError) {
    guard failed.load(ordering: .relaxed) else { return }
    for writer in writers {
      if let failure = writer.state.withLock({ $0.failure }) { throw failure }
    }
  }
}
