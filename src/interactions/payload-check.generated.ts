// Generated from the shape in interactions/payload-check.ts by shapeCheckSource (core/shape-source.ts); do not edit.
// `npx vitest run test/interactions/payload-check.test.ts -u` writes it again after the shape changed.

/** Whether `value` has the shape; allocates nothing. */
export function checkInteractionPayload(value: unknown): boolean {
  return check0(value);
}

function check0(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['id'];
  if (!(typeof field0 === 'string' && field0.length > 0)) return false;
  const field1 = fields['type'];
  if (!Number.isSafeInteger(field1)) return false;
  const field2 = fields['token'];
  if (!(typeof field2 === 'string' && field2.length > 0)) return false;
  const field3 = fields['application_id'];
  if (field3 !== undefined && !(typeof field3 === 'string')) return false;
  const field4 = fields['data'];
  if (field4 !== undefined && !check1(field4)) return false;
  const field5 = fields['guild_id'];
  if (field5 !== undefined && !(typeof field5 === 'string')) return false;
  const field6 = fields['channel_id'];
  if (field6 !== undefined && !(typeof field6 === 'string')) return false;
  const field7 = fields['member'];
  if (field7 !== undefined && !check13(field7)) return false;
  const field8 = fields['user'];
  if (field8 !== undefined && !check14(field8)) return false;
  const field9 = fields['created_at'];
  if (field9 !== undefined && !(typeof field9 === 'string' || Number.isFinite(field9))) return false;
  return true;
}

function check1(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['name'];
  if (field0 !== undefined && !(typeof field0 === 'string')) return false;
  const field1 = fields['custom_id'];
  if (field1 !== undefined && !(typeof field1 === 'string')) return false;
  const field2 = fields['values'];
  if (field2 !== undefined && !check2(field2)) return false;
  const field3 = fields['options'];
  if (field3 !== undefined && !check3(field3)) return false;
  const field4 = fields['components'];
  if (field4 !== undefined && !check9(field4)) return false;
  return true;
}

function check2(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!(typeof item === 'string')) return false;
  }
  return true;
}

function check3(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!check4(item)) return false;
  }
  return true;
}

function check4(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['name'];
  if (!(typeof field0 === 'string')) return false;
  const field1 = fields['type'];
  if (field1 !== undefined && !Number.isSafeInteger(field1)) return false;
  const field2 = fields['value'];
  if (field2 !== undefined && !(typeof field2 === 'string' || Number.isFinite(field2) || typeof field2 === 'boolean')) return false;
  const field3 = fields['focused'];
  if (field3 !== undefined && !(typeof field3 === 'boolean')) return false;
  const field4 = fields['options'];
  if (field4 !== undefined && !check5(field4)) return false;
  return true;
}

function check5(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!check6(item)) return false;
  }
  return true;
}

function check6(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['name'];
  if (!(typeof field0 === 'string')) return false;
  const field1 = fields['type'];
  if (field1 !== undefined && !Number.isSafeInteger(field1)) return false;
  const field2 = fields['value'];
  if (field2 !== undefined && !(typeof field2 === 'string' || Number.isFinite(field2) || typeof field2 === 'boolean')) return false;
  const field3 = fields['focused'];
  if (field3 !== undefined && !(typeof field3 === 'boolean')) return false;
  const field4 = fields['options'];
  if (field4 !== undefined && !check7(field4)) return false;
  return true;
}

function check7(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!check8(item)) return false;
  }
  return true;
}

function check8(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['name'];
  if (!(typeof field0 === 'string')) return false;
  const field1 = fields['type'];
  if (field1 !== undefined && !Number.isSafeInteger(field1)) return false;
  const field2 = fields['value'];
  if (field2 !== undefined && !(typeof field2 === 'string' || Number.isFinite(field2) || typeof field2 === 'boolean')) return false;
  const field3 = fields['focused'];
  if (field3 !== undefined && !(typeof field3 === 'boolean')) return false;
  const field4 = fields['options'];
  if (field4 !== undefined) return false;
  return true;
}

function check9(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!check10(item)) return false;
  }
  return true;
}

function check10(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['components'];
  if (field0 !== undefined && !check11(field0)) return false;
  return true;
}

function check11(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!check12(item)) return false;
  }
  return true;
}

function check12(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['custom_id'];
  if (field0 !== undefined && !(typeof field0 === 'string')) return false;
  const field1 = fields['value'];
  if (field1 !== undefined && !(typeof field1 === 'string')) return false;
  return true;
}

function check13(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['user'];
  if (field0 !== undefined && !check14(field0)) return false;
  return true;
}

function check14(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  const field0 = fields['id'];
  if (!(typeof field0 === 'string')) return false;
  const field1 = fields['username'];
  if (field1 !== undefined && !(typeof field1 === 'string')) return false;
  return true;
}
