/** What an item of a LinkedQueue carries: its neighbours and the queue it is in. */
export interface QueueLinks<T extends QueueLinks<T>> {
  prev: T | undefined;
  next: T | undefined;
  queue: LinkedQueue<T> | undefined;
}

/** A FIFO with O(1) removal from anywhere (aborted and withdrawn calls leave from the middle). */
export class LinkedQueue<T extends QueueLinks<T>> {
  head: T | undefined;
  tail: T | undefined;
  length = 0;

  push(item: T): void {
    item.queue = this;
    item.prev = this.tail;
    item.next = undefined;
    if (this.tail) this.tail.next = item;
    else this.head = item;
    this.tail = item;
    this.length++;
  }

  unshift(item: T): void {
    item.queue = this;
    item.next = this.head;
    item.prev = undefined;
    if (this.head) this.head.prev = item;
    else this.tail = item;
    this.head = item;
    this.length++;
  }

  remove(item: T): void {
    if (item.prev) item.prev.next = item.next;
    else this.head = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.tail = item.prev;
    item.prev = item.next = item.queue = undefined;
    this.length--;
  }
}
