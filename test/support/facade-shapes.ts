// The interface's response tables as data: field -> type. A response must carry every field of its
// table with that type (and no field the table does not list).
import { expect } from 'vitest';

export type FieldType =
  'string' | 'uuid' | 'date-time' | 'boolean' | 'integer' | 'object' | 'array' | `${'string' | 'uuid' | 'object'} | null`;

export const providerTable: Record<string, FieldType> = {
  id: 'uuid',
  organization_id: 'uuid',
  provider_id: 'string',
  name: 'string',
  client_id: 'string',
  auth_url: 'string',
  token_url: 'string',
  uses_pkce: 'boolean',
  code_challenge_method: 'string | null',
  created_at: 'date-time',
  updated_at: 'date-time',
  provider_type: 'string | null',
  mcp_server_url: 'string | null',
  token_endpoint_auth_method: 'string',
  is_dynamic_client: 'boolean',
};

export const deploymentTable: Record<string, FieldType> = {
  name: 'string',
  source: 'string',
  source_config: 'object',
  source_revision_config: 'object',
  secrets: 'array',
  secret_references: 'array',
  id: 'uuid',
  created_at: 'date-time',
  updated_at: 'date-time',
  status: 'string',
  latest_revision_id: 'uuid | null',
  latest_revision_status: 'string | null',
  active_revision_id: 'uuid | null',
  image_version: 'string | null',
  url: 'string | null',
  is_preview: 'boolean',
  preview_of: 'object | null',
  canary: 'object | null',
  conditions: 'array',
  tenant_id: 'uuid',
};

export const repositoryTable: Record<string, FieldType> = {
  host_integration_id: 'uuid',
  id: 'integer',
  name: 'string',
  owner: 'string',
  url: 'string',
  default_branch: 'string',
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function hasType(value: unknown, type: FieldType): boolean {
  const [base, nullable] = type.split(' | ') as [string, string | undefined];
  if (value === null) return nullable === 'null';
  switch (base) {
    case 'string':
      return typeof value === 'string';
    case 'uuid':
      return typeof value === 'string' && uuidPattern.test(value);
    case 'date-time':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d{2}-\d{2}T/.test(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    default:
      return false;
  }
}

export function expectTable(body: Record<string, unknown>, table: Record<string, FieldType>): void {
  expect(Object.keys(body).sort()).toEqual(Object.keys(table).sort());
  const wrong = Object.entries(table)
    .filter(([field, type]) => !hasType(body[field], type))
    .map(([field, type]) => `${field}: expected ${type}, got ${JSON.stringify(body[field])}`);
  expect(wrong).toEqual([]);
}
