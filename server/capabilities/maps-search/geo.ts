import type { TLatLng } from "../../../contracts/maps-search";

/** Mean Earth radius (IUGG); a sphere is within 0.5% of the ellipsoid, far below what a search radius means. */
const EARTH_RADIUS_M = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** Great-circle distance in metres (haversine). */
export function haversineMeters(a: TLatLng, b: TLatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

export type TRectangle = { low: TLatLng; high: TLatLng };

const wrapLng = (lng: number) => ((((lng + 180) % 360) + 360) % 360) - 180;

/**
 * The smallest latitude/longitude box holding the circle, or null when the circle reaches a pole (no box narrower
 * than 360° holds it). The longitude half-width is asin(sin(r/R) / cos(lat)), the widest point of the circle, which
 * is not at the center's latitude. A box crossing the antimeridian has low.lng > high.lng, as Google's viewport allows.
 */
export function boundingRectangle(center: TLatLng, radiusMeters: number): TRectangle | null {
  const angular = radiusMeters / EARTH_RADIUS_M;
  const dLat = deg(angular);
  if (center.lat + dLat >= 90 || center.lat - dLat <= -90) return null;
  const s = Math.sin(angular) / Math.cos(rad(center.lat));
  if (s >= 1) return null;
  const dLng = deg(Math.asin(s));
  return {
    low: { lat: center.lat - dLat, lng: wrapLng(center.lng - dLng) },
    high: { lat: center.lat + dLat, lng: wrapLng(center.lng + dLng) },
  };
}
