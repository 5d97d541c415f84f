// Uses of SessionHubSync as the package makes them, type-checked against the Apple branch.
final class Thing {}

struct Queue {
    var items: [Int] = []
    var thing: Thing?
}

struct Refused: Error {}

func useEverything() throws {
    let queue = LockedValue(Queue())
    let count = queue.withLock { queue -> Int in
        queue.items.append(1)
        return queue.items.count
    }
    let thing = queue.withLock { $0.thing }
    let checked: Int = try queue.withLock { (queue: inout Queue) throws(Refused) -> Int in
        if queue.items.isEmpty { throw Refused() }
        return queue.items[0]
    }
    let counter = RelaxedCounter()
    counter.add(1)
    _ = (counter.value, count, thing, checked)
}
