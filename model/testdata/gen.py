#!/usr/bin/env python3
"""Writes the model's test fixtures: one *.chunks.jsonl and one *.result.json
per scenario.

Each .chunks.jsonl line is one StreamChunk object exactly as aipd puts it in
a follow frame's {"chunk": ...}: struct field order (action_id, sequence,
kind, data, part), compact. data.hermes_sse is the connector's HermesSseEvent:
"data" is the provider payload re-encoded by serde_json (compact, UTF-8 kept,
map keys sorted) and "raw_data" is the provider's own text as the Hermes
server wrote it with Python's json.dumps defaults (", " and ": " separators,
non-ASCII as \\uXXXX, astral characters as surrogate pairs, insertion order).

Frame shapes follow docs/protocol.md §9.2 (Chat) and §9.4
(Responses); chunk kinds, parts and the aggregate follow docs/protocol.md §7.1, §8.
The .result.json files are the ActionResult of GET .../result without its
{"action_result": ...} wrapper.

Run from this directory: python3 gen.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

CHAT_ID = "chatcmpl-3f9a0c1e2d4b5a69788776655443"
CREATED = 1789028102
MODEL = "hermes-agent"
RESP_ID = "resp_8c1b2378ab1a41e0bcb7903e8885"
MSG_ID = "msg_9af9d1c2b3a4958677685940"
FC_ID = "fc_1a2b3c4d5e6f708192a3b4c5"
FCO_ID = "fco_3c4d5e6f708192a3b4c5d6e7"

TERMINAL_NAMES = {"done", "run.completed", "run.failed", "run.cancelled",
                  "response.completed", "response.failed", "response.incomplete", "error"}


def py(obj):
    """The provider's wire text: Python json.dumps with default settings."""
    return json.dumps(obj)


def sort_rec(v):
    if isinstance(v, dict):
        return {k: sort_rec(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [sort_rec(x) for x in v]
    return v


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Stream:
    def __init__(self, action_id, operation, max_events=None):
        self.action_id = action_id
        self.operation = operation
        self.chunks = []
        self.events = []  # HermesSseEvent objects for the aggregate
        self.text = ""
        self.max_events = max_events

    def frame(self, data, event=None, kind=None, null_ids=False):
        """One provider frame: `data` is a Python dict (or the "[DONE]" text)."""
        if data == "[DONE]":
            raw, parsed = "[DONE]", "[DONE]"
        else:
            raw, parsed = py(data), sort_rec(data)
        name = event or (data.get("event") if isinstance(data, dict) else None) or \
            (data.get("type") if isinstance(data, dict) else None)
        terminal = raw == "[DONE]" or name in TERMINAL_NAMES
        hs = {}
        if event is not None:
            hs["event"] = event
        elif null_ids:
            hs["event"] = None
        if null_ids:
            hs["id"] = None
        hs["data"] = parsed
        hs["raw_data"] = raw
        hs["terminal"] = terminal
        self.events.append(hs)
        if kind is None:
            if name in ("run.failed", "response.failed", "response.incomplete", "error"):
                kind = "error"
            elif terminal:
                kind = "done"
            else:
                kind = "data"
        chunk = {"action_id": self.action_id, "sequence": len(self.chunks), "kind": kind,
                 "data": {"hermes_sse": hs}}
        if isinstance(data, dict):
            for key in ("delta", "text", "output"):
                if isinstance(data.get(key), str) and data[key]:
                    chunk["part"] = {"type": "text", "text": data[key], "format": "plain"}
                    break
            # The connector's aggregated text (protocol §8.2).
            choices = data.get("choices")
            content = None
            if choices:
                content = choices[0].get("delta", {}).get("content")
            if content is not None:
                self.text += content
            elif isinstance(data.get("delta"), str):
                self.text += data["delta"]
            elif name == "response.output_text.delta" and isinstance(data.get("text"), str):
                self.text += data["text"]
        self.chunks.append(chunk)

    def upstream_closed(self):
        """The connector's extra Error chunk (protocol §8.2)."""
        self.chunks.append({"action_id": self.action_id, "sequence": len(self.chunks), "kind": "error",
                            "data": {"operation": self.operation,
                                     "reason": "upstream_stream_closed_without_terminal_event"}})

    def output(self, terminal, truncated):
        return {"endpoint_id": "hermes_local", "operation": self.operation, "http_status": 200,
                "events": self.events, "text": self.text, "terminal": terminal, "truncated": truncated}

    def result(self, status="completed", terminal=True, truncated=False, error=None):
        out = self.output(terminal, truncated)
        r = {"action_id": self.action_id, "status": status, "output": out}
        msg = []
        if self.text:
            msg.append({"type": "text", "text": self.text, "format": "plain"})
        msg.append({"type": "json", "data": out})
        r["message"] = msg
        if error is not None:
            r["error"] = error
        return r

    def write(self, name, result):
        with open(os.path.join(HERE, name + ".chunks.jsonl"), "w", encoding="utf-8") as f:
            for c in self.chunks:
                f.write(compact(c) + "\n")
        with open(os.path.join(HERE, name + ".result.json"), "w", encoding="utf-8") as f:
            f.write(compact(result) + "\n")


def connector_error(code, message, details):
    return {"code": code, "message": message, "category": "connector", "retryable": False,
            "details": details, "source": {"connector": "hermes-agent"}}


# ---- Chat Completions (protocol §9.2) ----

def chat(delta, finish=None, **extra):
    d = {"id": CHAT_ID, "object": "chat.completion.chunk", "created": CREATED, "model": MODEL,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    d.update(extra)
    return d


def role():
    return chat({"role": "assistant"})


def content(s):
    return chat({"content": s})


def usage(p, c):
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def tool_running(tool, emoji, label, call_id):
    return {"tool": tool, "emoji": emoji, "label": label, "toolCallId": call_id, "status": "running"}


def tool_completed(tool, call_id):
    return {"tool": tool, "toolCallId": call_id, "status": "completed"}


def chat_stop():
    s = Stream("act_chat_stop", "chat_stream")
    s.frame(role())
    s.frame(content("Listing the files\u2026 "))
    s.frame(tool_running("terminal", "\U0001F4BB", "ls -la", "call_terminal_1"), event="hermes.tool.progress")
    s.frame(tool_completed("terminal", "call_terminal_1"), event="hermes.tool.progress")
    s.frame(content("Here are the files: na\u00efve.txt and \U0001F389.md."))
    s.frame(chat({}, "stop", usage=usage(10, 5)))
    s.frame("[DONE]")
    s.write("chat_stop", s.result())


def chat_length():
    s = Stream("act_chat_length", "chat_stream")
    s.frame(role())
    s.frame(content("The report is long and"))
    s.frame(chat({}, "length", usage=usage(5, 3),
                 error={"message": "output was truncated", "type": "agent_error"},
                 hermes={"completed": False, "partial": True, "failed": False,
                         "error": "output was truncated", "error_code": "output_truncated"}))
    s.frame("[DONE]")
    s.write("chat_length", s.result())


def chat_error():
    s = Stream("act_chat_error", "chat_stream")
    s.frame(role())
    s.frame(content("Partial answer "))
    s.frame(chat({}, "error", usage=usage(5, 0),
                 error={"message": "upstream model 500", "type": "agent_error"},
                 hermes={"completed": False, "partial": False, "failed": True,
                         "error": "upstream model 500", "error_code": "agent_error"}))
    s.frame("[DONE]")
    s.write("chat_error", s.result())


def chat_crash():
    s = Stream("act_chat_crash", "chat_stream")
    s.frame(role())
    s.frame(content("Working on it"))
    s.frame(chat({}, "error"))
    s.frame("[DONE]")
    s.write("chat_crash", s.result())


def chat_no_finish():
    # The guide §6 example writes "event": null, "id": null: tolerated.
    s = Stream("act_chat_nofinish", "chat_stream")
    s.frame({"choices": [{"delta": {"content": "alpha"}}]}, null_ids=True)
    s.frame({"choices": [{"delta": {"content": "beta"}}]}, null_ids=True)
    s.frame("[DONE]", null_ids=True)
    s.write("chat_no_finish", s.result())


def chat_no_reply():
    s = Stream("act_chat_noreply", "chat_stream")
    s.frame(role())
    s.frame(chat({}, "stop", usage=usage(12, 0)))
    s.frame("[DONE]")
    s.write("chat_no_reply", s.result())


def chat_truncated():
    # max_events = 4: the [DONE] frame reaches the limit, is published as a
    # Done chunk, and the result is failed for truncation (guide §11).
    s = Stream("act_chat_trunc", "chat_stream", max_events=4)
    s.frame(role())
    s.frame(content("Short answer."))
    s.frame(chat({}, "stop", usage=usage(4, 2)))
    s.frame("[DONE]")
    s.write("chat_truncated", s.result(
        "failed", terminal=False, truncated=True,
        error=connector_error("connector.hermes_agent.stream_truncated",
                              "Hermes stream exceeded its configured event limit",
                              {"operation": "chat_stream"})))


def chat_upstream_closed():
    s = Stream("act_chat_closed", "chat_stream")
    s.frame(role())
    s.frame(content("I will run "))
    s.frame(tool_running("terminal", "\U0001F4BB", "make test", "call_make_1"), event="hermes.tool.progress")
    s.upstream_closed()
    s.write("chat_upstream_closed", s.result(
        "failed", terminal=False, truncated=False,
        error=connector_error("connector.hermes_agent.stream_incomplete",
                              "Hermes stream ended without a terminal event",
                              {"operation": "chat_stream"})))


def chat_old_tool():
    # PR #7500 era: {"tool","emoji","label"} on start only, no id, no status.
    s = Stream("act_chat_oldtool", "chat_stream")
    s.frame(role())
    s.frame({"tool": "web_search", "emoji": "\U0001F50D", "label": "golang rapid"}, event="hermes.tool.progress")
    s.frame({"tool": "read_file", "emoji": "\U0001F4D6", "label": "notes/todo.txt"}, event="hermes.tool.progress")
    s.frame(content("Found it."))
    s.frame(chat({}, "stop", usage=usage(8, 3)))
    s.frame("[DONE]")
    s.write("chat_old_tool", s.result())


# ---- Responses (protocol §9.4) ----

class Resp(Stream):
    def __init__(self, action_id):
        super().__init__(action_id, "responses_stream")
        self.sn = 0

    def ev(self, typ, gap=0, **fields):
        self.sn += gap
        d = {"type": typ}
        d.update(fields)
        d["sequence_number"] = self.sn  # always the last key
        self.sn += 1
        self.frame(d, event=typ)


def envelope(status, output=None, **extra):
    r = {"id": RESP_ID, "object": "response", "status": status, "created_at": CREATED,
         "model": MODEL, "output": output or []}
    r.update(extra)
    return r


def msg_item(status, text=None):
    return {"id": MSG_ID, "type": "message", "status": status, "role": "assistant",
            "content": [] if text is None else [{"type": "output_text", "text": text}]}


FC_ARGS = py({"path": "notes/todo.txt"})
FC_OUT = [{"type": "input_text", "text": "{\"content\":\"hello\"}"}]


def fc_item(status):
    return {"id": FC_ID, "type": "function_call", "status": status, "name": "read_file",
            "call_id": "call_123", "arguments": FC_ARGS}


def fco_item():
    return {"id": FCO_ID, "type": "function_call_output", "call_id": "call_123",
            "output": FC_OUT, "status": "completed"}


def responses(name, deltas, done_text, gap_at=None, failed=False):
    s = Resp("act_" + name)
    g = lambda n: 1 if gap_at == n else 0
    s.ev("response.created", response=envelope("in_progress"))
    # Text before the tool: the message item takes output_index 0 at its
    # first delta; the tool items take 1 and 2; the text after the tool goes
    # into the same message item (protocol §9.4).
    s.ev("response.output_item.added", output_index=0, item=msg_item("in_progress"))
    s.ev("response.output_text.delta", item_id=MSG_ID, output_index=0, content_index=0,
         delta=deltas[0], logprobs=[])
    s.ev("response.output_item.added", g(3), output_index=1, item=fc_item("in_progress"))
    s.ev("response.output_item.done", output_index=1, item=fc_item("completed"))
    s.ev("response.output_item.added", output_index=2, item=fco_item())
    s.ev("response.output_item.done", output_index=2, item=fco_item())
    for d in deltas[1:]:
        s.ev("response.output_text.delta", item_id=MSG_ID, output_index=0, content_index=0,
             delta=d, logprobs=[])
    slim = [{"type": "function_call", "name": "read_file", "arguments": FC_ARGS, "call_id": "call_123"},
            {"type": "function_call_output", "call_id": "call_123", "output": FC_OUT}]
    if failed:
        s.ev("response.failed", response=envelope(
            "failed", slim + [{"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "upstream model 500"}]}],
            error={"message": "upstream model 500", "type": "server_error"},
            usage={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}))
        s.write(name, s.result("failed", error=connector_error(
            "connector.hermes_agent.stream_failed", "Hermes stream failed",
            s.events[-1]["data"])))
        return
    s.ev("response.output_text.done", item_id=MSG_ID, output_index=0, content_index=0,
         text=done_text, logprobs=[])
    s.ev("response.output_item.done", output_index=0, item=msg_item("completed", done_text))
    # The terminal output puts the message last although it streamed at
    # output_index 0: never key on this array position.
    s.ev("response.completed", response=envelope(
        "completed", slim + [{"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": done_text}]}],
        usage={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}))
    s.write(name, s.result())


def main():
    chat_stop()
    chat_length()
    chat_error()
    chat_crash()
    chat_no_finish()
    chat_no_reply()
    chat_truncated()
    chat_upstream_closed()
    chat_old_tool()
    text = ["Let me check the notes. ", "Done \u2014 r\u00e9sum\u00e9 ready \u2705"]
    responses("responses_completed", text, "".join(text))
    responses("responses_mismatch", text, "Let me check the notes. Done.")
    responses("responses_gap", text, "".join(text), gap_at=3)
    responses("responses_failed", text[:1], None, failed=True)


if __name__ == "__main__":
    main()
