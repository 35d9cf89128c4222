import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore
import TroveTestTraits

/// Several processes on one index: one writer at a time, readers that notice every commit, and a re-embed that
/// never mixes vectors of two models.
@Suite("Writers and readers of one index", .offCooperativePool)
struct ConsistencyTests {
    private func filled(_ directory: TemporaryDirectory, documents: Int = 3) throws -> SQLiteStore {
        let store = try makeStore(in: directory)
        try fill(store, documents: documents)
        return store
    }

    /// `filled` on either store.
    private func filled(_ kind: StoreKind, _ directory: TemporaryDirectory, documents: Int = 3) async throws
        -> any IndexBackend
    {
        let store = try await makeBackend(kind, in: directory)
        try fill(store, documents: documents)
        return store
    }

    /// `documents` documents of two chunks each under the root `/r`.
    private func fill(_ store: any IndexBackend, documents: Int) throws {
        let root = try store.rootID(forPath: "/r")
        try store.inTransaction {
            for index in 0..<documents {
                try store.replaceDocument(
                    document(root, "doc\(index).md"), chunks: (0..<2).map { chunk($0, "text \(index) \($0)") })
            }
        }
    }

    /// Stages a vector for every chunk (or every one but the last) of `store`.
    private func stageAll(_ store: any IndexBackend, leavingOut: Int = 0) throws {
        try store.beginReembedding(fresh: true)
        let chunks = try store.chunksToReembed(afterID: 0, limit: 1000).dropLast(leavingOut)
        try store.inTransaction {
            try store.stageVectors(chunks.map { ($0.id, [0, 0, 1, 0]) })
        }
    }

    @Test("a second writer is refused while the lock is held, naming the holder's pid; released, it is free")
    func writerLock() throws {
        let directory = try TemporaryDirectory()
        let store = try filled(directory)
        let lock = try store.lockForWriting()
        #expect(FileSystem.permissions(store.writerLockPath) == 0o600)
        let other = try SQLiteStore(path: store.path, createIfMissing: false)
        let refused = #expect(throws: StoreError.self) { try other.lockForWriting() }
        #expect(refused?.code == .locked)
        #expect(
            refused?.message
                == "another trove process (pid \(getpid())) is writing index \(store.path) — "
                + "wait for it to finish, or stop it")
        lock.release()
        let second = try other.lockForWriting()
        second.release()
    }

    @Test("a released lock is free at once while a copy of its descriptor lives on, as in a child not yet exec'd")
    func releaseWithInheritedCopy() throws {
        let directory = try TemporaryDirectory()
        let store = try filled(directory)
        let lock = try store.lockForWriting()
        // The lock's descriptor, duplicated as vfork leaves it in a child until its execve.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        let held = try #require(descriptors.first {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == store.writerLockPath
        })
        let copy = dup(held)
        #expect(copy >= 0)
        defer { close(copy) }
        lock.release()
        let other = try SQLiteStore(path: store.path, createIfMissing: false)
        let again = try other.lockForWriting()
        again.release()
    }

    @Test("finishing a re-embed is refused while a chunk has no staged vector, and nothing changes", arguments: StoreKind.available)
    func unstagedChunk(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await filled(kind, directory)
        try stageAll(store, leavingOut: 1)
        let before = try store.contentRows()
        let refused = #expect(throws: StoreError.self) {
            try store.finishReembedding(manifest: sampleManifest(dimension: 4))
        }
        #expect(refused?.code == .concurrentChange)
        #expect(
            refused?.message
                == "the re-embed of \(store.location) is not complete: 1 chunk has no new vector yet — "
                + "run trove index --reembed again to finish it")
        #expect(try store.contentRows() == before)
        #expect(try store.vectorGeneration() == 0)
    }

    @Test("a finished re-embed adds one to the generation; a writer that started before it is stopped", arguments: StoreKind.available)
    func generation(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await filled(kind, directory)
        let started = try store.vectorGeneration()
        try stageAll(store)
        try store.finishReembedding(manifest: sampleManifest(dimension: 4))
        #expect(try store.vectorGeneration() == started + 1)
        // Rewriting the manifest keeps the count.
        try store.writeManifest(sampleManifest(dimension: 4))
        #expect(try store.vectorGeneration() == started + 1)
        #expect(throws: StoreError.self) { try store.inTransaction { try store.checkGeneration(started) } }
        try store.checkGeneration(started + 1)
    }

    @Test("a reader sees any other connection's commit in its data version, and a re-embed in its content version", arguments: StoreKind.available)
    func readerSeesEveryCommit(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try await filled(kind, directory)
        let reader = try IndexLocation(writer.location).open(createIfMissing: false)
        let data = try reader.dataVersion()
        let content = try reader.contentVersion()
        #expect(try reader.dataVersion() == data)  // nothing committed: unchanged
        try stageAll(writer)
        try writer.finishReembedding(manifest: sampleManifest(dimension: 4))
        // Same chunk count and highest id as before: only the generation tells the vectors changed.
        #expect(try reader.dataVersion() != data)
        #expect(try reader.contentVersion() != content)
        let afterReembed = (try reader.dataVersion(), try reader.contentVersion())
        try writer.inTransaction { try writer.writeManifest(sampleManifest(dimension: 4)) }
        #expect(try reader.dataVersion() != afterReembed.0)
        // No vector changed: SQLite keeps its snapshot. PostgreSQL's content version moves with every commit (it has
        // no snapshot to keep, so a conservative version costs nothing).
        if kind == .sqlite { #expect(try reader.contentVersion() == afterReembed.1) }
    }

    @Test("after a re-embed that keeps every chunk id, the vector cache is rebuilt with the new vectors")
    func cacheAfterReembed() throws {
        let directory = try TemporaryDirectory()
        let store = try filled(directory)
        let old = try store.loadVectorsCached()
        _ = try store.loadVectorsCached()  // a cache hit: the file is current
        try stageAll(store)
        try store.finishReembedding(manifest: sampleManifest(dimension: 4))
        let new = try store.loadVectorsCached()
        #expect(new.chunkIDs == old.chunkIDs)
        #expect(new.values == [Float](repeating: 0, count: new.chunkIDs.count * 4).enumerated().map {
            $0.offset % 4 == 2 ? 1 : 0
        })
    }
}
