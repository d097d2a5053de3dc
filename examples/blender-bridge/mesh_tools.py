"""The mesh tools, on real bpy/bmesh state. Every receipt is read back from the
scene after the operation; `changed` compares what was there before with what
is there after, never what the tool meant to do."""

import hashlib
import math
import struct

import bmesh
import bpy
from mathutils import Euler, Matrix, Vector

AXES = {"x": Vector((1, 0, 0)), "y": Vector((0, 1, 0)), "z": Vector((0, 0, 1))}


def counts(mesh):
    return {
        "vertex_count": len(mesh.vertices),
        "edge_count": len(mesh.edges),
        "face_count": len(mesh.polygons),
        "triangle_count": sum(len(p.vertices) - 2 for p in mesh.polygons),
    }


def fingerprint(mesh):
    """A digest of the vertex positions and face corners: equal means untouched."""
    h = hashlib.sha256()
    for v in mesh.vertices:
        h.update(struct.pack("<3f", *v.co))
    for p in mesh.polygons:
        h.update(struct.pack("<%di" % len(p.vertices), *p.vertices))
    return h.hexdigest()


def uv_digest(mesh, layer):
    h = hashlib.sha256()
    for loop_uv in layer.data:
        h.update(struct.pack("<2f", *loop_uv.uv))
    return h.hexdigest()


def link(obj):
    bpy.context.scene.collection.objects.link(obj)
    return obj


def unique_check(name, error):
    if name in bpy.data.objects:
        raise error("an object named %r already exists" % name)


class Implementations:
    def __init__(self, error):
        self.error = error

    # -- helpers -----------------------------------------------------------
    def mesh_object(self, name, field="object_name"):
        obj = bpy.data.objects.get(name)
        if obj is None:
            raise self.error("%s: no object named %r in the scene" % (field, name))
        if obj.type != "MESH":
            raise self.error("%s: %r is a %s, not a mesh" % (field, name, obj.type.lower()))
        return obj

    def edit(self, obj, operate):
        """Run operate(bm) on the object's mesh; answers (before, after, changed, operate's value)."""
        mesh = obj.data
        before, print_before = counts(mesh), fingerprint(mesh)
        bm = bmesh.new()
        try:
            bm.from_mesh(mesh)
            value = operate(bm)
            bm.to_mesh(mesh)
        finally:
            bm.free()
        mesh.update()
        after = counts(mesh)
        return before, after, fingerprint(mesh) != print_before, value

    def pick(self, sequence, indices, field, kind):
        sequence.ensure_lookup_table()
        bad = [i for i in indices if int(i) >= len(sequence)]
        if bad:
            raise self.error("%s: %s index %s out of range (the mesh has %d)" % (field, kind, bad[0], len(sequence)))
        return [sequence[int(i)] for i in indices]

    def evaluated_counts(self, obj):
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        mesh = evaluated.to_mesh()
        try:
            return counts(mesh)
        finally:
            evaluated.to_mesh_clear()

    def bake_modifiers(self, obj):
        """Apply every modifier of obj into its mesh data (no operator context needed)."""
        depsgraph = bpy.context.evaluated_depsgraph_get()
        baked = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph))
        old = obj.data
        obj.modifiers.clear()
        obj.data = baked
        baked.name = old.name
        if old.users == 0:
            bpy.data.meshes.remove(old)

    def no_op(self, verb, arguments):
        """What a tool that says success while doing nothing would answer: honest, unchanged counts."""
        receipt = {"changed": False}
        name = arguments.get("object_name") or arguments.get("name") or arguments.get("input_a")
        if isinstance(name, str):
            receipt["object_name"] = name
            obj = bpy.data.objects.get(name)
            if obj is not None and obj.type == "MESH":
                receipt.update(counts(obj.data))
        return receipt

    # -- tools ---------------------------------------------------------------
    def create_primitive(self, a):
        unique_check(a["name"], self.error)
        size, kind = float(a["size"]), a["primitive_type"]
        rotation = Euler([math.radians(x) for x in a["rotation"]])
        common = {"location": tuple(a["location"]), "rotation": rotation, "scale": tuple(a["scale"])}
        ops = bpy.ops.mesh
        if kind == "cube":
            ops.primitive_cube_add(size=size, **common)
        elif kind == "sphere":
            ops.primitive_uv_sphere_add(radius=size / 2, **common)
        elif kind == "ico_sphere":
            ops.primitive_ico_sphere_add(radius=size / 2, **common)
        elif kind == "cylinder":
            ops.primitive_cylinder_add(radius=size / 2, depth=size, **common)
        elif kind == "cone":
            ops.primitive_cone_add(radius1=size / 2, depth=size, **common)
        elif kind == "torus":
            ops.primitive_torus_add(major_radius=size / 2, minor_radius=size / 8,
                                    location=common["location"], rotation=rotation)
            bpy.context.active_object.scale = common["scale"]
        elif kind == "plane":
            ops.primitive_plane_add(size=size, **common)
        else:
            ops.primitive_circle_add(radius=size / 2, fill_type="NGON", **common)
        obj = bpy.context.active_object
        obj.name = a["name"]
        obj.data.name = a["name"]
        created = bpy.data.objects.get(a["name"]) is obj
        return dict({"object_name": obj.name, "primitive_type": kind, "changed": created,
                     "location": list(obj.location)}, **counts(obj.data))

    def bevel_edges(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            edges = self.pick(bm.edges, a["edge_indices"], "edge_indices", "edge")
            bmesh.ops.bevel(bm, geom=edges, offset=float(a["width"]), offset_type="OFFSET",
                            segments=int(a["segments"]), profile=0.5, affect="EDGES")
        before, after, changed, _ = self.edit(obj, op)
        return dict({"object_name": obj.name, "changed": changed,
                     "beveled_edges": sorted(int(i) for i in a["edge_indices"]) if changed else [],
                     "segments": int(a["segments"]), "before": before}, **after)

    def extrude_faces(self, a):
        obj = self.mesh_object(a["object_name"])
        offset = Vector(a["direction"]) * float(a["distance"])

        def op(bm):
            faces = self.pick(bm.faces, a["face_indices"], "face_indices", "face")
            made = bmesh.ops.extrude_face_region(bm, geom=faces)
            moved = [g for g in made["geom"] if isinstance(g, bmesh.types.BMVert)]
            bmesh.ops.translate(bm, vec=offset, verts=moved)
        before, after, changed, _ = self.edit(obj, op)
        return dict({"object_name": obj.name, "changed": changed,
                     "extruded_faces": sorted(int(i) for i in a["face_indices"]) if changed else [],
                     "before": before}, **after)

    def inset(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            faces = self.pick(bm.faces, a["face_indices"], "face_indices", "face")
            bmesh.ops.inset_region(bm, faces=faces, thickness=float(a["thickness"]), depth=float(a["depth"]))
        before, after, changed, _ = self.edit(obj, op)
        return dict({"object_name": obj.name, "changed": changed,
                     "inset_faces": sorted(int(i) for i in a["face_indices"]) if changed else [],
                     "before": before}, **after)

    def boolean_op(self, a):
        source = self.mesh_object(a["input_a"], "input_a")
        cutter = self.mesh_object(a["input_b"], "input_b")
        if source == cutter:
            raise self.error("input_b must name another object than input_a")
        unique_check(a["output_name"], self.error)
        result = source.copy()
        result.data = source.data.copy()
        result.name = a["output_name"]
        result.data.name = a["output_name"]
        link(result)
        modifier = result.modifiers.new("boolean", "BOOLEAN")
        modifier.object = cutter
        modifier.operation = {"union": "UNION", "intersect": "INTERSECT", "subtract": "DIFFERENCE"}[a["operation"]]
        if a["apply"]:
            self.bake_modifiers(result)
            cutter.hide_set(True)
            after = counts(result.data)
        else:
            after = self.evaluated_counts(result)
        return dict({"object_name": result.name, "operation": a["operation"],
                     "source_objects": [source.name, cutter.name],
                     "changed": bpy.data.objects.get(result.name) is result, "applied": bool(a["apply"])}, **after)

    def add_edge_loop(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            edges = self.pick(bm.edges, a["edge_indices"], "edge_indices", "edge")
            bmesh.ops.subdivide_edges(bm, edges=edges, cuts=int(a["cuts"]), use_grid_fill=True)
        before, after, changed, _ = self.edit(obj, op)
        return dict({"object_name": obj.name, "changed": changed, "cuts": int(a["cuts"]), "before": before}, **after)

    def merge_vertices(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            bmesh.ops.remove_doubles(bm, verts=list(bm.verts), dist=float(a["threshold"]))
        before, after, changed, _ = self.edit(obj, op)
        return dict({"object_name": obj.name, "changed": changed,
                     "vertices_removed": before["vertex_count"] - after["vertex_count"], "before": before}, **after)

    def triangulate_mesh(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            bmesh.ops.triangulate(bm, faces=list(bm.faces))
        before, after, changed, _ = self.edit(obj, op)
        remaining = sum(1 for p in obj.data.polygons if len(p.vertices) != 3)
        return dict({"object_name": obj.name, "changed": changed,
                     "non_triangle_face_count": remaining, "before": before}, **after)

    def cleanup_mesh(self, a):
        obj = self.mesh_object(a["object_name"])

        def op(bm):
            flipped = 0
            if a["remove_doubles"]:
                bmesh.ops.remove_doubles(bm, verts=list(bm.verts), dist=float(a["merge_threshold"]))
            if a["delete_loose"]:
                loose_edges = [e for e in bm.edges if not e.link_faces]
                bmesh.ops.delete(bm, geom=loose_edges, context="EDGES")
                loose_verts = [v for v in bm.verts if not v.link_edges]
                bmesh.ops.delete(bm, geom=loose_verts, context="VERTS")
            if a["fix_normals"]:
                normals = [f.normal.copy() for f in bm.faces]
                bmesh.ops.recalc_face_normals(bm, faces=list(bm.faces))
                flipped = sum(1 for f, n in zip(bm.faces, normals) if f.normal.dot(n) < 0)
            return flipped
        before, after, changed, flipped = self.edit(obj, op)
        removed = {"vertices": before["vertex_count"] - after["vertex_count"],
                   "edges": before["edge_count"] - after["edge_count"],
                   "faces": before["face_count"] - after["face_count"]}
        return dict({"object_name": obj.name, "changed": changed, "removed": removed,
                     "normals_flipped": flipped, "before": before}, **after)

    def combine_meshes(self, a):
        sources = [self.mesh_object(name, "object_names") for name in a["object_names"]]
        unique_check(a["new_name"], self.error)
        bm = bmesh.new()
        try:
            for obj in sources:
                part = obj.data.copy()
                part.transform(obj.matrix_world)
                bm.from_mesh(part)  # appends to what the bmesh already holds
                bpy.data.meshes.remove(part)
            mesh = bpy.data.meshes.new(a["new_name"])
            bm.to_mesh(mesh)
        finally:
            bm.free()
        joined = link(bpy.data.objects.new(a["new_name"], mesh))
        for obj in sources:
            bpy.data.objects.remove(obj)
        gone = all(name not in bpy.data.objects for name in a["object_names"])
        return dict({"object_name": joined.name, "changed": gone and bpy.data.objects.get(a["new_name"]) is joined,
                     "source_count": len(sources)}, **counts(mesh))

    def mirror(self, a):
        obj = self.mesh_object(a["object_name"])
        before = self.evaluated_counts(obj)
        print_before = fingerprint(obj.data)
        axis = "xyz".index(a["axis"])
        modifier = obj.modifiers.new("mirror_" + a["axis"], "MIRROR")
        modifier.use_axis = [i == axis for i in range(3)]
        modifier.use_bisect_axis = [a["bisect"] and i == axis for i in range(3)]
        modifier.use_mirror_merge = bool(a["merge"])
        if a["apply"]:
            self.bake_modifiers(obj)
            after = counts(obj.data)
            changed = fingerprint(obj.data) != print_before
        else:
            after = self.evaluated_counts(obj)
            changed = after != before
        return dict({"object_name": obj.name, "axis": a["axis"], "changed": changed,
                     "applied": bool(a["apply"]), "before": before}, **after)

    def loft_sections(self, a):
        sections = [self.mesh_object(name, "sections") for name in a["sections"]]
        unique_check(a["output_name"], self.error)
        loops = [[obj.matrix_world @ v.co for v in obj.data.vertices] for obj in sections]
        sizes = {len(loop) for loop in loops}
        if len(sizes) != 1 or 0 in sizes:
            raise self.error("sections must have the same vertex count (they have %s)" % sorted(len(l) for l in loops))
        size = sizes.pop()
        closed = all(len(obj.data.edges) == len(obj.data.vertices) for obj in sections)
        bm = bmesh.new()
        try:
            rings = [[bm.verts.new(co) for co in loop] for loop in loops]
            spans = size if closed else size - 1
            for lower, upper in zip(rings, rings[1:]):
                for i in range(spans):
                    j = (i + 1) % size
                    bm.faces.new((lower[i], lower[j], upper[j], upper[i]))
            mesh = bpy.data.meshes.new(a["output_name"])
            bm.to_mesh(mesh)
        finally:
            bm.free()
        hull = link(bpy.data.objects.new(a["output_name"], mesh))
        return dict({"object_name": hull.name, "changed": len(mesh.polygons) > 0,
                     "section_count": len(sections), "closed": closed}, **counts(mesh))

    def lathe_profile(self, a):
        profile = self.mesh_object(a["profile"], "profile")
        unique_check(a["output_name"], self.error)
        segments = int(a["segments"])
        bm = bmesh.new()
        try:
            bm.from_mesh(profile.data)
            bmesh.ops.transform(bm, matrix=profile.matrix_world, verts=list(bm.verts))
            geom = list(bm.verts) + list(bm.edges)
            bmesh.ops.spin(bm, geom=geom, cent=Vector(a["origin"]), axis=AXES[a["axis"]],
                           angle=2 * math.pi, steps=segments, use_duplicate=False)
            # The last step lands on the first ring: weld the seam.
            bmesh.ops.remove_doubles(bm, verts=list(bm.verts), dist=1e-5)
            mesh = bpy.data.meshes.new(a["output_name"])
            bm.to_mesh(mesh)
        finally:
            bm.free()
        solid = link(bpy.data.objects.new(a["output_name"], mesh))
        return dict({"object_name": solid.name, "changed": len(mesh.polygons) > 0,
                     "segment_count": segments}, **counts(mesh))

    def set_pivot(self, a):
        obj = self.mesh_object(a["object_name"])
        target = Vector(a["position"])
        old_origin = obj.matrix_world.translation.copy()
        local = obj.matrix_world.inverted() @ target
        obj.data.transform(Matrix.Translation(-local))
        obj.matrix_world.translation = target
        bpy.context.view_layer.update()
        position = list(obj.matrix_world.translation)
        return {"object_name": obj.name, "position": position,
                "changed": (obj.matrix_world.translation - old_origin).length > 1e-9}

    def array_instances(self, a):
        source = self.mesh_object(a["object_name"])
        count = int(a["count"])
        step = Vector([math.radians(x) for x in a["rotate_step"]])
        names = ["%s_%03d" % (a["name_prefix"], i) for i in range(1, count)]
        for name in names:
            unique_check(name, self.error)
        base = source.rotation_euler.copy()
        for i, name in enumerate(names, start=1):
            copy = source.copy()  # linked duplicate: shares the mesh data
            copy.name = name
            copy.rotation_euler = Euler([base[k] + step[k] * i for k in range(3)], base.order)
            link(copy)
        objects = [source.name] + names
        verified = sum(1 for name in objects if name in bpy.data.objects)
        return {"source": source.name, "objects": objects, "verified_count": verified,
                "changed": verified == count and count > 1}

    def auto_uv(self, a):
        obj = self.mesh_object(a["object_name"])
        mesh = obj.data
        had = mesh.uv_layers.active
        digest_before = uv_digest(mesh, had) if had else None
        layer = had or mesh.uv_layers.new(name="UVMap")
        mesh.uv_layers.active = layer
        view_layer = bpy.context.view_layer
        for other in bpy.context.selected_objects:
            other.select_set(False)
        view_layer.objects.active = obj
        obj.select_set(True)
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            bpy.ops.mesh.select_all(action="SELECT")
            bpy.ops.uv.smart_project(island_margin=float(a["margin"]))
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        layer = mesh.uv_layers.active
        digest = uv_digest(mesh, layer)
        return {"object_name": obj.name, "uv_set": layer.name, "uv_count": len(layer.data),
                "uv_digest": digest, "changed": digest != digest_before, "margin": float(a["margin"])}

    def uv_project(self, a):
        obj = self.mesh_object(a["object_name"])
        mesh = obj.data
        had = mesh.uv_layers.active
        digest_before = uv_digest(mesh, had) if had else None
        layer = had or mesh.uv_layers.new(name="UVMap")
        axis = "xyz".index(a["axis"])
        others = [i for i in range(3) if i != axis]
        world = [obj.matrix_world @ v.co for v in mesh.vertices]
        if not world:
            raise self.error("object_name: %r has no vertices" % obj.name)
        lows = [min(p[i] for p in world) for i in range(3)]
        spans = [max(max(p[i] for p in world) - lows[i], 1e-9) for i in range(3)]
        centre = [lows[i] + spans[i] / 2 for i in range(3)]

        def unit(p, i):
            return (p[i] - lows[i]) / spans[i]

        def project(p, normal):
            if a["projection"] == "planar":
                return unit(p, others[0]), unit(p, others[1])
            if a["projection"] == "cylindrical":
                angle = math.atan2(p[others[1]] - centre[others[1]], p[others[0]] - centre[others[0]])
                return (angle + math.pi) / (2 * math.pi), unit(p, axis)
            if a["projection"] == "spherical":
                d = Vector([p[i] - centre[i] for i in range(3)])
                angle = math.atan2(d[others[1]], d[others[0]])
                elevation = math.asin(max(-1.0, min(1.0, d[axis] / d.length))) if d.length > 0 else 0.0
                return (angle + math.pi) / (2 * math.pi), elevation / math.pi + 0.5
            dominant = max(range(3), key=lambda i: abs(normal[i]))
            rest = [i for i in range(3) if i != dominant]
            return unit(p, rest[0]), unit(p, rest[1])

        margin = float(a["margin"])
        fit = 1 - 2 * margin
        normal_matrix = obj.matrix_world.to_3x3()
        for poly in mesh.polygons:
            normal = normal_matrix @ poly.normal
            for loop_index in poly.loop_indices:
                u, v = project(world[mesh.loops[loop_index].vertex_index], normal)
                layer.data[loop_index].uv = (margin + u * fit, margin + v * fit)
        mesh.update()
        digest = uv_digest(mesh, layer)
        return {"object_name": obj.name, "uv_set": layer.name, "uv_count": len(layer.data),
                "projection": a["projection"], "axis": a["axis"], "uv_digest": digest,
                "changed": digest != digest_before}

    def assign_material(self, a):
        obj = self.mesh_object(a["object_name"])
        mesh = obj.data
        slot = int(a["slot_index"])
        material = bpy.data.materials.get(a["material_name"]) or bpy.data.materials.new(a["material_name"])
        before = ([m.name if m else None for m in mesh.materials], [p.material_index for p in mesh.polygons])
        while len(mesh.materials) <= slot:
            mesh.materials.append(None)
        mesh.materials[slot] = material
        for poly in mesh.polygons:
            poly.material_index = slot
        mesh.update()
        after = ([m.name if m else None for m in mesh.materials], [p.material_index for p in mesh.polygons])
        return {"object_name": obj.name, "material_name": material.name, "slot_index": slot,
                "changed": after != before, "face_count": len(mesh.polygons)}

    def get_poly_count(self, a):
        obj = self.mesh_object(a["object_name"])
        return dict({"object_name": obj.name, "changed": False}, **counts(obj.data))
