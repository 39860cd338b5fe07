/// `--shard K/N`: which process of N takes an item, decided by its path below the ingest root
/// alone, so every machine and every run agrees without talking to the others.
enum Sharding {
    /// Whether the shard `(k, n)` (k counted from 1) takes the item at `relativePath`; every
    /// item when the run is not sharded.
    static func takes(_ relativePath: String, shard: (index: Int, count: Int)?) -> Bool {
        guard let (k, n) = shard else { return true }
        return self.shard(of: relativePath, count: n) == k
    }

    /// The shard (counted from 1) of `count` that takes the item at `relativePath`.
    static func shard(of relativePath: String, count: Int) -> Int {
        Int(stableHash(relativePath) % UInt64(max(1, count))) + 1
    }

    /// FNV-1a over the relative path: the same share on every machine and every run.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// `state.sqlite`, or `state-shard-K-of-N.sqlite` for one shard (so shards on shared storage
    /// never write the same database).
    static func runStateName(_ shard: (index: Int, count: Int)?) -> String {
        "state" + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".sqlite"
    }
}
