/** What a handler answers when nothing is to be sent back (a produce with acks=0, as Kafka). */
export const noAnswer = Symbol("no answer");
