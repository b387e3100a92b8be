import Dispatch
import Synchronization

/// Writes files on one background thread while the sync encodes the next page.
///
/// File creation is system time and encoding is user time; overlapping them is how a sync on
/// two cores approaches the file system's floor. Writes happen in submission order on a single
/// thread with its own ``FileSystem`` cursor. ``drain()`` is the barrier: it waits for every
/// submitted write and reports the first failure; the store calls it before anything that
/// reads or removes files, and before every commit point.
final class FileWriteQueue: Sendable {
  private let queue = DispatchQueue(label: "contentful-mirror.file-writer")
  private let group = DispatchGroup()
  private let state: Mutex<State>

  private struct State: Sendable {
    var fileSystem: FileSystem
    var failure: MirrorError?
  }

  /// Whether each file is flushed with its own `fsync` (see ``Durability``).
  private let flushEachFile: Bool

  init(root: String, durability: Durability = .syncPerCommit) {
    state = Mutex(State(fileSystem: FileSystem(trustingRoot: root), failure: nil))
    flushEachFile = durability == .fsyncEachFile
  }

  /// Queues `files` to be written atomically, in order.
  func submit(_ files: [(path: String, bytes: [UInt8])]) {
    let files = files.map { WriteJob(path: $0.path, bytes: $0.bytes) }
    queue.async(group: group) { [self] in
      self.state.withLock { state in
        guard state.failure == nil else { return }
        do throws(MirrorError) {
          for file in files {
            try state.fileSystem.writeAtomically(file.bytes, to: file.path, flush: flushEachFile)
          }
        } catch {
          state.failure = error
        }
      }
    }
  }

  /// Waits until everything submitted is written.
  ///
  /// - Throws: The first ``MirrorError`` a write met (later writes were skipped).
  func drain() throws(MirrorError) {
    group.wait()
    if let failure = state.withLock({ $0.failure }) { throw failure }
  }

  private struct WriteJob: Sendable {
    var path: String
    var bytes: [UInt8]
  }
}
