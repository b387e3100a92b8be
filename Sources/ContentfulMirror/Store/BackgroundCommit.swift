import Dispatch
import Synchronization

/// A commit point of a first sync, made durable on another thread.
///
/// `syncfs(2)` takes a tenth of a second or more per commit point on these disks, and during a
/// first sync nothing waits for it but the checkpoint: so the file system is flushed here while
/// the sync goes on writing the next pages, and the checkpoint is written when the flush returns.
/// At most one is in flight; ``wait()`` is the barrier.
final class BackgroundCommit: Sendable {
  private let queue = DispatchQueue(label: "contentful-mirror.commit")
  private let group = DispatchGroup()
  private let failure = Mutex<MirrorError?>(nil)

  /// Flushes the file system (unless `flush` is off, see ``Durability/unflushed``), then writes
  /// `checkpoint` to `layout.checkpoint`. The caller has drained the writes the checkpoint covers
  /// and waited for the previous commit.
  func start(checkpoint: [UInt8], layout: MirrorLayout, flush: Bool = true) {
    queue.async(group: group) { [self] in
      var fileSystem = FileSystem(trustingRoot: layout.root)
      fileSystem.flushes = flush
      do throws(MirrorError) {
        try fileSystem.syncFileSystem(of: layout.root)
        try IndexRedoLog(layout: layout).clear(fileSystem: fileSystem)
        try fileSystem.writeAtomically(checkpoint, to: layout.checkpoint)
      } catch {
        failure.withLock { $0 = error }
      }
    }
  }

  /// Waits for the commit in flight, if any.
  ///
  /// - Throws: The ``MirrorError`` it met (once).
  func wait() throws(MirrorError) {
    group.wait()
    if let error = failure.withLock({ $0.take() }) { throw error }
  }
}
