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
    var files: [(path: String, bytes: [UInt8])]
    var row: IndexStore.ItemRow
  }

  let layout: MirrorLayout
  let renderer: DocumentRenderer
  let locales: [String]

  /// Encodes `items` on up to `threads` threads; results are in `items` order.
  func encode(_ items: [SyncedItem], threads: Int) -> [EncodedItem] {
    let workers = max(1, min(threads, items.count))
    if workers == 1 { return items.map(encode) }
    let results = Mutex([EncodedItem?](repeating: nil, count: items.count))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var mine: [(Int, EncodedItem)] = []
      for index in stride(from: worker, to: items.count, by: workers) {
        mine.append((index, encode(items[index])))
      }
      results.withLock { all in
        for (index, item) in mine { all[index] = item }
      }
    }
    return results.withLock { $0.compactMap { $0 } }
  }

  private func encode(_ item: SyncedItem) -> EncodedItem {
    var files: [(path: String, bytes: [UInt8])] = []
    files.reserveCapacity(locales.count + 1)
    files.append(
      (layout.rawItemPath(for: item.key), item.snapshotBytes))
    let documents = renderer.encodedDocuments(for: item, locales: locales)
    for (locale, bytes) in zip(locales, documents) {
      files.append(
        (layout.documentPath(for: item.key, contentType: item.contentTypeID, locale: locale), bytes)
      )
    }
    return EncodedItem(files: files, row: IndexStore.ItemRow(for: item))
  }
}
