import Dispatch
import Synchronization

/// Writes files on background threads while the sync encodes the next page.
///
/// File creation is system time and encoding is user time; overlapping them is how a sync on
/// two cores approaches the file system's floor. Each writer thread has its own ``FileSystem``
/// cursor; a page's items are split between the writers in contiguous runs, and every file of
/// an item goes to the same writer, so no two writers create the same directory. ``drain()`` is
/// the barrier: it waits for every submitted write and reports the first failure; the store
/// calls it before anything that reads or removes files, and before every commit point.
final class FileWriteQueue: Sendable {
  private let writers: [Writer]
  private let group = DispatchGroup()

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
  init(root: String, durability: Durability = .syncPerCommit, writers: Int = 1) {
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
  func submit(_ items: [[File]]) {
    let perWriter = (items.count + writers.count - 1) / max(writers.count, 1)
    for (index, writer) in writers.enumerated() {
      let start = index * perWriter
      guard start < items.count else { break }
      let run = items[start..<min(start + perWriter, items.count)]
      let flush = flushEachFile
      writer.queue.async(group: group) {
        writer.state.withLock { state in
          guard state.failure == nil else { return }
          do throws(MirrorError) {
            for files in run {
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
          }
        }
      }
    }
  }

  /// Waits until everything submitted is written.
  ///
  /// - Throws: The first ``MirrorError`` a write met (later writes of that writer were skipped).
  func drain() throws(MirrorError) {
    group.wait()
    for writer in writers {
      if let failure = writer.state.withLock({ $0.failure }) { throw failure }
    }
  }
}
