import Dispatch
import Synchronization

/// Turns a page's items into the bytes of their files (raw snapshot and one document per
/// locale) and their index rows, on several threads.
///
/// Encoding is pure CPU work on values, so it parallelizes cleanly; creating the files does not
/// (measured: two threads creating files in the same directories multiply system time on ext4),
/// so the files go to one ``FileWriteQueue``.
struct ItemEncoder: Sendable {
  /// One item, ready to write.
  struct EncodedItem: Sendable {
    /// The documents, then the raw snapshot: a snapshot on disk means its documents are too.
    var files: [FileWriteQueue.File]
    var row: IndexStore.ItemRow
  }

  let layout: MirrorLayout
  let renderer: DocumentRenderer
  let locales: [String]
  /// Each locale's fallback chain, looked up once.
  private let chains: [[[UInt8]]]

  init(layout: MirrorLayout, renderer: DocumentRenderer, locales: [String]) {
    self.layout = layout
    self.renderer = renderer
    self.locales = locales
    chains = locales.map(renderer.chainBytes)
  }

  /// Encodes `items` on up to `threads` threads; results are in `items` order.
  ///
  /// - Parameter inPlace: For each item, whether its files are written in place (a new item of a
  ///   first sync) rather than replaced atomically.
  func encode(_ items: [SyncedItem], inPlace: [Bool], threads: Int) -> [EncodedItem] {
    let workers = max(1, min(threads, items.count))
    if workers == 1 { return zip(items, inPlace).map(encode) }
    let results = Mutex([EncodedItem?](repeating: nil, count: items.count))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var mine: [(Int, EncodedItem)] = []
      for index in stride(from: worker, to: items.count, by: workers) {
        mine.append((index, encode(items[index], inPlace: inPlace[index])))
      }
      results.withLock { all in
        for (index, item) in mine { all[index] = item }
      }
    }
    return results.withLock { $0.compactMap { $0 } }
  }

  private func encode(_ item: SyncedItem, inPlace: Bool) -> EncodedItem {
    var files: [FileWriteQueue.File] = []
    files.reserveCapacity(locales.count + 1)
    let documents = renderer.encodedDocuments(for: item, locales: locales, chains: chains)
    let directory = layout.itemDirectory(for: item.key, contentType: item.contentTypeID)
    for (locale, bytes) in zip(locales, documents) {
      let path = MirrorLayout.documentPath(inItemDirectory: directory, locale)
      files.append(FileWriteQueue.File(path: path, bytes: bytes, inPlace: inPlace))
    }
    files.append(
      FileWriteQueue.File(
        path: layout.rawItemPath(for: item.key), bytes: item.snapshotBytes, inPlace: inPlace))
    return EncodedItem(files: files, row: IndexStore.ItemRow(for: item))
  }
}
