/**
 * The shape of a generated catalog row (./models/*.json, and the rows of the refreshed
 * copy `xcsh models update` writes): a Model without what the provider index supplies
 * (provider, and the api and baseUrl unless the model is served differently from the
 * rest of its provider).
 */
import type { KnownApi, Model } from "../types.ts";

export interface CatalogModel extends Omit<Model, "provider" | "api" | "baseUrl"> {
  api?: KnownApi;
  baseUrl?: string;
}
