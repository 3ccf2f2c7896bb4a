/**
 * The shape of a generated catalog row (./models/*.json, and the rows of the refreshed
 * copy `xcsh models update` writes): a Model without what the provider index supplies
 * (provider, and the api and baseUrl unless the model is served differently from the
 * rest of its provider).
 *
 * Also the rows of ./models/typed.json: the models that do not chat (pi 1.x's model
 * types "classifier" and "image"), each with the API that runs it. They are kept apart
 * from the chat lists, so nothing that picks a chat model can pick one of them.
 */
import type { KnownApi, Model } from "../types.ts";

export interface CatalogModel extends Omit<Model, "provider" | "api" | "baseUrl"> {
  api?: KnownApi;
  baseUrl?: string;
}

/** pi 1.x's model types: chat models stream turns; the others answer one request. */
export type ModelType = "chat" | "image" | "classifier";

/** The APIs that run classifier models (typed-requests in config/ sends them). */
export type ClassifierApi = "typesafe-system-one" | "openai-decisions";
/** The APIs that run image models. */
export type ImageApi = "openrouter-images";

/** How a System One service takes images: TypeSafe's `assets`, OpenRouter's data URLs in the state, Clef's `images`. */
export interface ClassifierCompat {
  imageInput?: "assets" | "state-image-urls" | "images";
  /** TypeSafe's opt-in header for its experimental image input. */
  sendImageOptInHeader?: boolean;
}

interface TypedRowBase {
  id: string;
  name: string;
  /** Set when the model is served at another endpoint than its provider's chat models. */
  baseUrl?: string;
  input: ("text" | "image")[];
  cost: Model["cost"];
  headers?: Record<string, string>;
}

export interface ClassifierCatalogModel extends TypedRowBase {
  type: "classifier";
  api: ClassifierApi;
  contextWindow: number;
  compat?: ClassifierCompat;
}

export interface ImageCatalogModel extends TypedRowBase {
  type: "image";
  api: ImageApi;
  /** What a response holds: images, and text for the models that also write. */
  output: ("text" | "image")[];
}

export type TypedCatalogModel = ClassifierCatalogModel | ImageCatalogModel;

/** ./models/typed.json: catalog provider id → its classifier and image models. */
export type TypedCatalog = Record<string, TypedCatalogModel[]>;

/** A classifier model as the registry hands it out: the row with its provider and endpoint. */
export type ClassifierModel = Omit<ClassifierCatalogModel, "baseUrl"> & { provider: string; baseUrl: string };
/** An image model as the registry hands it out. */
export type ImageModel = Omit<ImageCatalogModel, "baseUrl"> & { provider: string; baseUrl: string };
/** A model of a type other than chat. */
export type TypedModel = ClassifierModel | ImageModel;
