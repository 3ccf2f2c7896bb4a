/**
 * The pieces of the Bedrock provider that must be exactly right, checked against facts
 * from outside: SigV4 against AWS's published test-suite vectors (get-vanilla and
 * get-vanilla-query-order-key-case, AKIDEXAMPLE), the fake server's own verifier
 * against the same vectors, and the event-stream decoder against frames made by the
 * fake server's independent encoder (its own CRC table), including a corrupted one.
 */
import { describe, expect, test } from "bun:test";
import { decodeMessage, readEventStream } from "../../src/ai/providers/bedrock/event-stream.ts";
import { signRequest } from "../../src/ai/providers/bedrock/sign.ts";
import { encodeEventMessage, expectedSignature } from "../support/fake-llm/bedrock.ts";

const SUITE = {
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
  region: "us-east-1",
  service: "service",
  datetime: "20150830T123600Z",
};
const SCOPE = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";

describe("SigV4 signing (aws4fetch behind signRequest)", () => {
  test("get-vanilla: AWS's published Authorization header", async () => {
    const headers = await signRequest({ method: "GET", url: "https://example.amazonaws.com/", headers: {}, body: "", ...SUITE });
    expect(headers.get("authorization")).toBe(
      `AWS4-HMAC-SHA256 Credential=${SCOPE}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
    expect(headers.get("x-amz-date")).toBe("20150830T123600Z");
  });

  test("get-vanilla-query-order-key-case: the query is sorted before signing", async () => {
    const headers = await signRequest({ method: "GET", url: "https://example.amazonaws.com/?Param2=value2&Param1=value1", headers: {}, body: "", ...SUITE });
    expect(headers.get("authorization")).toEndWith("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  });

  test("a session token is sent in X-Amz-Security-Token and signed", async () => {
    const headers = await signRequest({
      method: "POST",
      url: "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream",
      headers: { "content-type": "application/json" },
      body: "{}",
      ...SUITE,
      credentials: { ...SUITE.credentials, sessionToken: "session-token-1" },
      region: "eu-west-1",
      service: "bedrock",
    });
    expect(headers.get("x-amz-security-token")).toBe("session-token-1");
    expect(headers.get("authorization")).toContain("Credential=AKIDEXAMPLE/20150830/eu-west-1/bedrock/aws4_request");
    expect(headers.get("authorization")).toContain("SignedHeaders=host;x-amz-date;x-amz-security-token,");
  });
});

describe("the fake Bedrock server's verifier", () => {
  const vanilla = (query: string) =>
    expectedSignature({
      method: "GET",
      rawPath: "/",
      query: new URLSearchParams(query),
      headers: new Headers({ host: "example.amazonaws.com", "x-amz-date": "20150830T123600Z" }),
      signedHeaders: ["host", "x-amz-date"],
      body: "",
      amzDate: "20150830T123600Z",
      scope: "20150830/us-east-1/service/aws4_request",
      secretAccessKey: SUITE.credentials.secretAccessKey,
    });

  test("computes AWS's published signatures, so it can judge the client's", () => {
    expect(vanilla("")).toBe("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
    expect(vanilla("Param2=value2&Param1=value1")).toBe("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  });
});

describe("event-stream decoding", () => {
  const frame = () => encodeEventMessage({ ":event-type": "contentBlockDelta", ":message-type": "event" }, { contentBlockIndex: 0, delta: { text: "Hé" } });

  test("reads headers and payload of a frame the independent encoder made", () => {
    const message = decodeMessage(frame());
    expect(message.headers).toEqual({ ":event-type": "contentBlockDelta", ":message-type": "event" });
    expect(JSON.parse(new TextDecoder().decode(message.payload))).toEqual({ contentBlockIndex: 0, delta: { text: "Hé" } });
  });

  test("reassembles messages however the network splits the bytes", async () => {
    const bytes = new Uint8Array([...frame(), ...frame(), ...frame()]);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
        controller.close();
      },
    });
    const messages = [];
    for await (const message of readEventStream(body)) messages.push(message);
    expect(messages.length).toBe(3);
  });

  test("a corrupted byte is an error, not a misread event", () => {
    const bytes = frame();
    bytes[bytes.length - 10] ^= 0xff;
    expect(() => decodeMessage(bytes)).toThrow("message checksum mismatch");
    const prelude = frame();
    prelude[5] ^= 0x01;
    expect(() => decodeMessage(prelude)).toThrow("prelude checksum mismatch");
  });

  test("a stream cut inside a message is an error", async () => {
    const bytes = frame().slice(0, 20);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const read = async () => {
      for await (const _ of readEventStream(body)) void _;
    };
    expect(read()).rejects.toThrow("closed inside a message");
  });
});
